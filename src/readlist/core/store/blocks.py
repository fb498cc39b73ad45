"""A table's lines as the file writes them, joined a block of documents at a time (`Blocks`).

Writing the database joins every document's line; with 100,000 annotations, looking up and joining each line
on every write cost more than the change itself. A block holds the joined lines of up to BLOCK documents in
the table's order and is joined again only when one of them changed, was removed, or a document was added to
it, so a star joins one block of a thousand lines and copies the rest. At the first write after opening, the blocks
whose lines are as the file has them are views of the file's bytes (`seed`), their lines cut apart only when one of
them changes: 100,000 annotations are not held as lines and again as blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice

BLOCK = 1024


class Blocks:
    """The joined lines of one table, by blocks of documents in the table's order."""

    def __init__(self) -> None:
        self.ids: list[list[str]] = []  # each block's document ids, in order
        self.joined: list[bytes | memoryview | None] = []  # each block's lines joined; None: to join again
        self.block_of: dict[str, int] = {}
        self.count = 0  # documents in the blocks
        self.whole: set[int] = set()  # blocks as the file holds them, their lines not cut apart yet (see `seed`)
        self.lines_kept: dict[str, bytes] = {}  # where the lines of such a block go when it is cut apart

    def seed(
        self, blocks: list[tuple[list[str], bytes | memoryview | None]], lines: dict[str, bytes], cut: bool = True
    ) -> None:
        """Start from the blocks of the table's first documents as the file holds them (`format.LazyLines`): each
        block's ids and its lines joined, or None to join from `lines`, the lines kept of the table's documents.
        A block held whole is cut apart into `lines` only when it changes (with `cut`; else `lines` holds its lines
        already, as the log's, a line to a run of entries): a file's lines are not held twice."""
        self.ids = [ids for ids, _ in blocks]
        self.joined = [joined for _, joined in blocks]
        self.block_of = {doc_id: n for n, ids in enumerate(self.ids) for doc_id in ids}
        self.count = len(self.block_of)
        self.whole = {n for n, joined in enumerate(self.joined) if joined is not None} if cut else set()
        self.lines_kept = lines

    def _cut_apart(self, n: int, changed: str | None = None) -> None:
        """Put the lines of block `n`, held whole, in `lines_kept` (but the changed document's), to join it again."""
        if n in self.whole:
            self.whole.discard(n)
            lines = bytes(self.joined[n] or b"").split(b",\n")
            self.lines_kept.update(
                (doc_id, line) for doc_id, line in zip(self.ids[n], lines, strict=True) if doc_id != changed
            )

    def changed(self, doc_id: str) -> None:
        """The document changed or was removed: its block is joined again at the next write."""
        n = self.block_of.get(doc_id)
        if n is not None:
            self._cut_apart(n, doc_id)
            self.joined[n] = None

    def lines(
        self, table: dict[str, dict], lines_of: Callable[[dict[str, dict]], list[bytes]]
    ) -> list[bytes | memoryview]:
        """The table's lines joined by blocks (to be joined with ",\\n" as lines are); `lines_of(documents)` gives
        the lines of some of the table's documents, in order."""
        for n, joined in enumerate(self.joined):
            if joined is None:
                self._drop_removed(n, table)
        added = len(table) - self.count
        if added < 0 or not self._add(list(islice(reversed(table), added))[::-1] if added else []):
            self._rebuild(table)
        out = []
        for n, joined in enumerate(self.joined):
            if joined is None:
                joined = self.joined[n] = b",\n".join(lines_of({doc_id: table[doc_id] for doc_id in self.ids[n]}))
            if joined:
                out.append(joined)
        return out

    def _drop_removed(self, n: int, table: dict) -> None:
        kept = [doc_id for doc_id in self.ids[n] if doc_id in table]
        for doc_id in self.ids[n]:
            if doc_id not in table:
                del self.block_of[doc_id]
        self.count -= len(self.ids[n]) - len(kept)
        self.ids[n] = kept

    def _add(self, fresh: list[str]) -> bool:
        """Documents added at the table's end go into its last block; False when they are not new (the table was
        changed some other way: then the blocks are made anew)."""
        if not self.block_of.keys().isdisjoint(fresh):
            return False
        start = 0
        while start < len(fresh):
            if not self.ids or len(self.ids[-1]) >= BLOCK:
                self.ids.append([])
                self.joined.append(None)
            room = BLOCK - len(self.ids[-1])
            part = fresh[start : start + room]
            self._cut_apart(len(self.ids) - 1)
            self.ids[-1].extend(part)
            self.joined[-1] = None
            self.block_of.update(dict.fromkeys(part, len(self.ids) - 1))
            start += len(part)
        self.count += len(fresh)
        return True

    def _rebuild(self, table: dict) -> None:
        for n in list(self.whole):
            self._cut_apart(n)
        ids = list(table)
        self.ids = [ids[start : start + BLOCK] for start in range(0, len(ids), BLOCK)]
        self.joined = [None] * len(self.ids)
        self.block_of = {doc_id: n for n, block in enumerate(self.ids) for doc_id in block}
        self.count = len(ids)
