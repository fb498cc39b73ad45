"""What resolving found, as the database keeps it: one `Resolution` document per paper id (the `resolutions`
table), read back leniently (it is a cache: a document that does not read back is ignored and the paper looked up
again) and merged between two databases (per paper, the one checked last wins).

Resolutions are not annotations: they are not in the change log and undo does not take them back
(`readlist resolve --forget` drops one). A forgotten one leaves a `Forgotten` document in its place, saying when,
so that merging a copy of the database that still holds the lookup does not bring it back (the newer of the two
wins, as between two lookups); a later lookup of the paper replaces it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..resolve.records import Resolution
from .merge_history import instant

FORGOTTEN_AT = "forgotten_at"


@dataclass(frozen=True)
class Forgotten:
    """A lookup the user forgot (`resolve --forget`), and when: what merging weighs against the other side's."""

    paper_id: str
    forgotten_at: str

    @property
    def checked_at(self) -> str:  # the time merging compares, as a lookup's
        return self.forgotten_at

    def to_dict(self) -> dict:
        return {"paper_id": self.paper_id, FORGOTTEN_AT: self.forgotten_at}


def read_resolutions(docs: Mapping[str, dict]) -> dict[str, Resolution]:
    """The resolutions by paper id that read back; a damaged or hand-edited document is left out, and so is the
    note of a forgotten one."""
    return {pid: found for pid, found in read_found(docs).items() if isinstance(found, Resolution)}


def read_found(docs: Mapping[str, dict]) -> dict[str, Resolution | Forgotten]:
    """The resolutions and the notes of forgotten ones by paper id, as merging weighs them."""
    out: dict[str, Resolution | Forgotten] = {}
    for pid, doc in docs.items():
        forgotten = doc.get(FORGOTTEN_AT) if isinstance(doc, dict) else None
        if isinstance(forgotten, str) and doc.get("paper_id") == pid:
            out[pid] = Forgotten(pid, forgotten)
            continue
        try:
            resolution = Resolution.from_dict(doc)
        except ValueError:
            continue
        if resolution.paper_id == pid:
            out[pid] = resolution
    return out


def merge_resolutions(
    mine: Mapping[str, Resolution | Forgotten], theirs: Mapping[str, Resolution | Forgotten]
) -> tuple[dict[str, Resolution | Forgotten], int]:
    """Both sides' resolutions, the one checked (or forgotten) last winning for a paper both have (this side's at
    equal times), and how many lookups of the result are the other side's."""
    merged = dict(mine)
    taken = 0
    for pid, other in theirs.items():
        own = mine.get(pid)
        if own is None or instant(other.checked_at) > instant(own.checked_at):
            merged[pid] = other
            taken += isinstance(other, Resolution)
    return merged, taken
