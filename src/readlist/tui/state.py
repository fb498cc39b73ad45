"""What the app remembers between runs: the last paper, the quick filter and the theme."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class UiState:
    paper: str | None = None
    filter: str = "all"
    theme: str | None = None


def load_state(path: Path) -> UiState:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return UiState()
    if not isinstance(data, dict):
        return UiState()
    return UiState(
        paper=data.get("paper") if isinstance(data.get("paper"), str) else None,
        filter=data.get("filter") if isinstance(data.get("filter"), str) else "all",
        theme=data.get("theme") if isinstance(data.get("theme"), str) else None,
    )


def save_state(path: Path, state: UiState) -> None:
    """Best effort and atomic: losing the last-selected paper is harmless, a half-written file is not."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(state), handle)
        os.replace(tmp, path)
    except OSError:
        pass
