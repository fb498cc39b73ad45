"""Where things live: the bundled paper list and the user's data files."""

from __future__ import annotations

from pathlib import Path

APP_NAME = "readlist"
_PACKAGE = Path(__file__).resolve().parents[2]  # readlist/ (this file is readlist/core/files/paths.py)


def bundled_papers() -> Path:
    """The ICML 2025 list shipped with the package (or the source tree's copy when run from a checkout)."""
    packaged = _PACKAGE / "data" / "icml2025.txt"
    if packaged.is_file():
        return packaged
    return _PACKAGE.parents[1] / "data" / "icml2025.txt"


def default_db_path() -> Path:
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False) / "readlist.json"


def ui_state_path(db_path: Path) -> Path:
    """Small file beside the database remembering the last paper, filter and theme."""
    return db_path.with_name(db_path.stem + ".ui.json")


def unreadable(path: Path | str, exc: OSError, kind: str) -> str:
    """One line naming the file and why it could not be read; `kind` is what it should have been."""
    if isinstance(exc, FileNotFoundError):
        return f"{path}: no such file"
    if isinstance(exc, IsADirectoryError):
        return f"{path}: is a directory, not a {kind}"
    if isinstance(exc, PermissionError):
        return f"{path}: permission denied (cannot read the file)"
    return f"{path}: cannot read ({exc.strerror or exc})"


def export_directory() -> Path:
    """Where an export goes unless the user says otherwise: the documents directory, else downloads, else home
    (never the current directory, which may be a source tree the export would land in)."""
    from platformdirs import user_documents_path, user_downloads_path

    for directory in (user_documents_path(), user_downloads_path()):
        if directory.is_dir():
            return directory
    return Path.home()
