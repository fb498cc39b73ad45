"""What `is:missing` lists instead of papers: the annotations of papers in none of the lists whose file exists, kept,
never deleted."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from ...core.store.annotation import missing_title
from ...core.text.normalize import hashtags
from ..display import row_marks, safe


def missing_papers_text(orphans: Sequence) -> Text:
    if not orphans:
        return Text(
            "No missing papers: every annotation belongs to a paper of one of your lists. Esc clears the search."
        )
    text = Text()
    text.append(f"{len(orphans)} annotated paper(s) are in none of your lists. ", "bold")
    text.append(
        "Their annotations are kept: `readlist show ID` prints one, `readlist reattach ID REF` moves them onto "
        "the paper it became, `readlist list --missing --json` saves them all.\n\n",
        "dim",
    )
    for note in orphans:
        star, mark, _ = row_marks(note.starred, note.status)
        text.append(star, "yellow")
        text.append(f"{mark} {safe(note.id)}  ")  # as a damaged or hand-made database may hold it
        text.append(safe(missing_title(note))[:200])
        if note.tags:
            text.append("  " + hashtags(note.tags), "cyan")
        if note.note.strip():
            text.append("\n    note: ", "bold")
            text.append(safe(note.note)[:300])
        text.append("\n")
    return text
