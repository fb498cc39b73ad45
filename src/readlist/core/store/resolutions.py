"""What resolving found, as the database keeps it: one `Resolution` document per paper id (the `resolutions`
table), read back leniently (it is a cache: a document that does not read back is ignored and the paper looked up
again) and merged between two databases (per paper, the one checked last wins).

Resolutions are not annotations: they are not in the change log and undo does not take them back
(`readlist resolve --forget` drops one).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..resolve.records import Resolution
from .merge_history import instant


def read_resolutions(docs: Mapping[str, dict]) -> dict[str, Resolution]:
    """The resolutions by paper id that read back; a damaged or hand-edited document is left out."""
    out: dict[str, Resolution] = {}
    for pid, doc in docs.items():
        try:
            resolution = Resolution.from_dict(doc)
        except ValueError:
            continue
        if resolution.paper_id == pid:
            out[pid] = resolution
    return out


def merge_resolutions(
    mine: Mapping[str, Resolution], theirs: Mapping[str, Resolution]
) -> tuple[dict[str, Resolution], int]:
    """Both sides' resolutions, the one checked last winning for a paper both have (this side's at equal times),
    and how many of the result are not this side's."""
    merged = dict(mine)
    taken = 0
    for pid, other in theirs.items():
        own = mine.get(pid)
        if own is None or instant(other.checked_at) > instant(own.checked_at):
            merged[pid] = other
            taken += 1
    return merged, taken
