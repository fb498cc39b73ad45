"""The paper files a database has opened, its library of lists (the `lists` table): one `KnownList` per file, by
its resolved path, with its name, format, paper ids and when it was first and last opened; what they make of
missing papers, each list's progress, and merging two libraries (per list, the one opened last wins).

A paper's annotations belong to no list: they are kept by paper id, so the same abstract in two lists is one
paper. A paper is missing when no list whose file still exists holds it: another list's papers are not missing
from the list open now, and re-attachment never takes them (see `reconcile`).

A list's ids are kept packed: each 12-hex-digit id as its 6 bytes, base64 (8 characters a paper, where a JSON
list of the ids takes 15); ids of another shape, which a hand-edited file may hold, are kept as a list.
Documents are read back leniently: one that does not read is left out, and the list is remembered again when it is
next opened.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from .changes import parse_iso
from .merge_history import instant

_HEX_IDS = re.compile(r"(?:[0-9a-f]{12})*")
ID_CHARS = 12


@dataclass(frozen=True)
class KnownList:
    """A paper file the database has opened: where, what it is called, its papers' ids, when it was opened."""

    path: str  # resolved: symbolic links followed
    name: str
    format: str
    packed: str | tuple[str, ...]  # the ids, as `pack_ids` keeps them
    first_opened: str
    last_opened: str

    @property
    def ids(self) -> tuple[str, ...]:
        return unpack_ids(self.packed)

    @property
    def exists(self) -> bool:
        return os.path.isfile(self.path)

    def to_doc(self) -> dict[str, Any]:
        packed = self.packed if isinstance(self.packed, str) else list(self.packed)
        return {
            "path": self.path,
            "name": self.name,
            "format": self.format,
            "ids": packed,
            "papers": len(self.ids),
            "first_opened": self.first_opened,
            "last_opened": self.last_opened,
        }

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> KnownList | None:
        """The list a document holds; None when it does not read back (a hand edit gone wrong)."""
        texts = [doc.get(key) for key in ("path", "name", "format", "first_opened", "last_opened")]
        packed = doc.get("ids")
        if not all(isinstance(text, str) for text in texts) or not texts[0]:
            return None
        if isinstance(packed, list) and all(isinstance(pid, str) for pid in packed):
            packed = tuple(packed)
        elif not isinstance(packed, str) or not _decodes(packed):  # its ids made only when asked for (`ids`)
            return None
        path, name, fmt, first, last = texts
        return cls(path, name, fmt, packed, first, last)


def pack_ids(ids: Iterable[str]) -> str | tuple[str, ...]:
    """The ids as a list keeps them: 6 bytes each, base64, when every one is 12 hex digits."""
    ids = tuple(ids)
    joined = "".join(ids)
    if len(joined) == ID_CHARS * len(ids) and _HEX_IDS.fullmatch(joined):
        return base64.b64encode(bytes.fromhex(joined)).decode("ascii")
    return ids


def _decodes(packed: str) -> bool:
    """Whether `pack_ids` made this text, as far as `_unpack` reads it: checked without making its ids (100,000 ids
    made in 30 ms at every command, the list's own never asked for)."""
    try:
        base64.b64decode(packed, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


@lru_cache(maxsize=256)
def _unpack(packed: str) -> tuple[str, ...] | None:
    try:
        digits = base64.b64decode(packed, validate=True).hex()
    except (binascii.Error, ValueError):
        return None
    return tuple(digits[start : start + ID_CHARS] for start in range(0, len(digits), ID_CHARS))


def unpack_ids(packed: str | tuple[str, ...]) -> tuple[str, ...]:
    """The ids `pack_ids` packed (decoded once: a library of 50 lists is read on every command); () for a
    packed text that does not decode."""
    if isinstance(packed, tuple):
        return packed
    return _unpack(packed) or ()


def read_lists(docs: Iterable[Mapping[str, Any]]) -> dict[str, KnownList]:
    """The lists that read back, by path."""
    found = (KnownList.from_doc(doc) for doc in docs)
    return {known.path: known for known in found if known is not None}


def key_for(path: str, known: Iterable[str]) -> str:
    """The path a list is remembered under: a known list's when both name the same file (a hard link, or a path
    through a link the resolved path no longer shows), else the resolved path."""
    real = os.path.realpath(path)
    for other in known:
        if other == real:
            return other
    for other in known:
        try:
            if os.path.samefile(other, real):
                return other
        except OSError:
            continue
    return real


def opened(known: KnownList | None, path: str, name: str, fmt: str, ids: Iterable[str], now: str) -> KnownList:
    """The list as remembered after opening it now with these papers."""
    packed = pack_ids(ids)
    if known is None:
        return KnownList(path, name, fmt, packed, now, now)
    return replace(known, name=name, format=fmt, packed=packed, last_opened=now)


def changed(known: KnownList | None, fresh: KnownList, newest: str | None) -> bool:
    """Whether opening the list again is worth a write: a list not known yet, other papers or another name, or
    one that was not the list opened last (`newest`: the path of the one opened last). Opening the same list
    again and again (a script's commands) writes nothing."""
    if known is None or newest != known.path:
        return True
    return (known.name, known.format, known.packed) != (fresh.name, fresh.format, fresh.packed)


def newest(lists: Mapping[str, KnownList]) -> KnownList | None:
    """The list opened last."""
    return max(lists.values(), key=lambda known: (instant(known.last_opened), known.path), default=None)


def held_by_others(lists: Mapping[str, KnownList], here: str | None) -> frozenset[str]:
    """The ids of papers held by a list other than `here` whose file still exists: never missing, never
    re-attached."""
    held: set[str] = set()
    for path, known in lists.items():
        if path != here and known.exists:
            held.update(known.ids)
    return frozenset(held)


def matching(lists: Mapping[str, KnownList], given: str) -> list[KnownList]:
    """The lists `given` names: by path (as given, or resolved), else by name (case aside)."""
    real = os.path.realpath(os.path.expanduser(given))
    by_path = [known for path, known in lists.items() if path in (given, real)]
    if by_path:
        return by_path
    wanted = given.casefold()
    return [known for known in lists.values() if known.name.casefold() == wanted]


@dataclass(frozen=True)
class Progress:
    """What a list's figures say: its papers, and how many of them are read, being read, starred, noted."""

    papers: int
    read: int = 0
    reading: int = 0
    starred: int = 0
    noted: int = 0

    def figures(self) -> str:
        """'19 papers · 3 read · 1 reading · 2 starred · 1 noted', as the CLI and the lists screen say it."""
        parts = [f"{self.papers} paper{'s' if self.papers != 1 else ''}"]
        counts = (("read", self.read), ("reading", self.reading), ("starred", self.starred), ("noted", self.noted))
        return " · ".join(parts + [f"{n} {what}" for what, n in counts])


def when(time: str) -> str:
    """A list's time as people read it: local, to the minute."""
    moment = parse_iso(time)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M") if moment else "?"


def progress(known: KnownList, docs: Mapping[str, Mapping[str, Any]]) -> Progress:
    """The list's figures, from the annotation documents by paper id."""
    read = reading = starred = noted = 0
    for pid in known.ids:
        doc = docs.get(pid)
        if doc is None:
            continue
        status = doc.get("status")
        read += status == "read"
        reading += status == "reading"
        starred += bool(doc.get("starred"))
        noted += bool(str(doc.get("note") or "").strip())
    return Progress(len(known.ids), read, reading, starred, noted)


def merge_lists(mine: Mapping[str, KnownList], theirs: Mapping[str, KnownList]) -> tuple[dict[str, KnownList], int]:
    """Both libraries: per list, the one opened last wins (this side's at equal times), first opened the earlier
    of the two; and how many of the result are not this side's."""
    merged = dict(mine)
    taken = 0
    for path, other in theirs.items():
        own = mine.get(path)
        if own is None:
            merged[path] = other
            taken += 1
            continue
        first = min(own.first_opened, other.first_opened, key=instant)
        if instant(other.last_opened) > instant(own.last_opened):
            merged[path] = replace(other, first_opened=first)
            taken += 1
        elif first != own.first_opened:
            merged[path] = replace(own, first_opened=first)
    return merged, taken
