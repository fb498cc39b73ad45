"""readlist: a keyboard-first terminal reading list for research papers."""


def __getattr__(name: str) -> str:
    # Looked up on demand: importing package metadata costs ~30 ms at every start.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("readlist")
        except PackageNotFoundError:  # running from a source tree
            return "0.0.0"
    raise AttributeError(name)
