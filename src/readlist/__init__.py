"""readlist: a keyboard-first terminal reading list for research papers."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("readlist")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0"
