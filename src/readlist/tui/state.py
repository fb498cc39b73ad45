"""What the app remembers between runs: the last paper, the quick filter, the theme, each paper list's order and the
list pane's width."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..core.files.atomic import atomic_write_bytes


@dataclass(frozen=True)
class UiState:
    paper: str | None = None
    filter: str = "all"
    theme: str | None = None
    sorts: dict[str, str] = field(default_factory=dict)  # the order chosen, by the paper file's absolute path
    list_width: int | None = None  # the list pane's share of a wide screen, in percent (None: the stylesheet's)


def load_state(path: Path) -> UiState:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return UiState()
    if not isinstance(data, dict):
        return UiState()

    def text(key: str) -> str | None:
        return data.get(key) if isinstance(data.get(key), str) else None

    sorts = data.get("sorts") if isinstance(data.get("sorts"), dict) else {}
    sorts = {key: value for key, value in sorts.items() if isinstance(value, str)}
    width = data.get("list_width")
    width = width if isinstance(width, int) and not isinstance(width, bool) else None
    return UiState(
        paper=text("paper"), filter=text("filter") or "all", theme=text("theme"), sorts=sorts, list_width=width
    )


def save_state(path: Path, state: UiState) -> None:
    """Best effort: losing the last-selected paper is harmless, a half-written file is not."""
    try:
        atomic_write_bytes(path, json.dumps(asdict(state)).encode("utf-8"))
    except OSError:
        pass
