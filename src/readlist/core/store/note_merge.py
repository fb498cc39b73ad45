"""Three-way merging of a note's lines: both sides' edits applied once to the text they started from.

Given the note both sides started from (git's merge base), each side's edits are the runs of lines it changed
there (difflib). Edits at separate places are all applied, the shared text kept once; two sides adding lines at
the same place (both appending to the note, say) keep both additions, the first side's first. Edits that touch
the same or neighbouring lines, unless identical, cannot be told apart safely: `merge_lines` then gives None and
the merge keeps both texts whole, as it does without a base.
"""

from __future__ import annotations

from difflib import SequenceMatcher

Hunk = tuple[int, int, list[str]]  # base lines [start, end) replaced by these lines


def _hunks(base: list[str], side: list[str]) -> list[Hunk]:
    matcher = SequenceMatcher(None, base, side, autojunk=False)
    return [(i1, i2, side[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _clash(a: Hunk, b: Hunk) -> bool:
    """Whether two edits touch the same or neighbouring base lines (as diff3 counts them)."""
    return a[0] <= b[1] and b[0] <= a[1]


def merge_lines(base: list[str], first: list[str], second: list[str]) -> list[str] | None:
    """`base` with the edits of `first` and of `second` applied; None when they overlap."""
    ours, theirs = _hunks(base, first), _hunks(base, second)
    out: list[str] = []
    at = i = j = 0
    while i < len(ours) or j < len(theirs):
        a = ours[i] if i < len(ours) else None
        b = theirs[j] if j < len(theirs) else None
        if a is not None and b is not None and _clash(a, b):
            if a == b:  # the same edit on both sides: once
                taken = [a]
            elif a[0] == a[1] == b[0] == b[1]:  # both added lines at one place: both additions
                taken = [a, b]
            else:
                return None
            i, j = i + 1, j + 1
        elif b is None or (a is not None and a[0] < b[0]):
            taken, i = [a], i + 1
        else:
            taken, j = [b], j + 1
        out += base[at : taken[0][0]]
        for _, _, lines in taken:
            out += lines
        at = taken[0][1]
    return out + base[at:]


def merge_note(base: str, first: str, second: str) -> str | None:
    """The note with both sides' edits of `base` (`first`'s additions before `second`'s where both added lines at
    one place); None when the edits overlap."""
    merged = merge_lines(base.split("\n"), first.split("\n"), second.split("\n"))
    return None if merged is None else "\n".join(merged)
