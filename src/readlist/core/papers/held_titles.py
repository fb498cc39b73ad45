"""Derived titles held as one block of UTF-8, and those of the list read from the title cache last, which a paper
asks before deriving its own (see `Paper.title`).

A string per title cost 100,000 derived titles 20 MB, most holding a "…" and so two bytes a character, and 6 MB
more in their papers' attribute dicts; as one block and where each title ends they take 9 MB. A paper's title is
made from the block when it is asked for (a row drawn, a paper shown), and kept by the paper then as before.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any

ENDS = "Q"  # the array type of where each title ends


class Titles(Sequence[str]):
    """Titles as one block of UTF-8 and where each ends in it; `titles[n]` makes the n-th one. Made empty, it is
    filled title after title (`append`), with no string per title held meanwhile."""

    __slots__ = ("ends", "text")

    def __init__(self, text: bytes | bytearray | None = None, ends: array | None = None) -> None:
        self.text = text if text is not None else bytearray()
        self.ends = ends if ends is not None else array(ENDS)

    @classmethod
    def of(cls, titles: Iterable[str]) -> Titles:
        made = cls()
        for title in titles:
            made.append(title)
        return made

    def append(self, title: str) -> None:
        self.text += title.encode("utf-8", "surrogatepass")
        self.ends.append(len(self.text))

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, n):  # an int: slices are of no use here
        ends = self.ends
        if n < 0:
            n += len(ends)
        if not 0 <= n < len(ends):
            raise IndexError("no such title")
        start = ends[n - 1] if n > 0 else 0
        return self.text[start : ends[n]].decode("utf-8", "surrogatepass")


# The papers whose cached titles are held, those titles, and each paper's position by its `index`.
_held: tuple[Sequence[Any], Titles, array] | None = None


def hold(papers: Sequence[Any], titles: Titles) -> None:
    """Hold `titles`, one for each of `papers` ("" for a paper whose title is not derived), in place of those held
    before (of the list opened before this one, whose papers are then let go)."""
    global _held
    positions = array("i", [-1]) * (max((paper.index for paper in papers), default=0) + 1)
    for position, paper in enumerate(papers):
        if paper.index >= 0:
            positions[paper.index] = position
    _held = (papers, titles, positions)


def held_for(papers: Sequence[Any]) -> bool:
    """Whether these papers (the same sequence) are those whose titles are held."""
    return held(papers) is not None


def held(papers: Sequence[Any]) -> Titles | None:
    """The titles held for these papers (the same sequence), by position; None when none are."""
    found = _held
    return found[1] if found is not None and found[0] is papers else None


def title_of(paper: Any) -> str | None:
    """The held title of this paper (the very object), or None when none is held for it."""
    held = _held
    if held is None:
        return None
    papers, titles, positions = held
    number = paper.index
    position = positions[number] if 0 <= number < len(positions) else -1
    if position < 0 or papers[position] is not paper:
        return None
    return titles[position] or None
