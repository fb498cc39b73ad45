"""A TinyDB storage that never leaves a half-written file (writing through `atomic_files`).

TinyDB's JSONStorage rewrites its file in place (seek, write, truncate) through a long-lived handle;
a crash in the middle leaves a broken file. Here every write serialises the whole database, writes
a temporary file in the same directory, fsyncs it, renames it over the old file and fsyncs the
directory. The data lives in memory between writes; `changed_on_disk` compares a cheap `stat`
signature so another process's write is noticed without reading the file.

Serialising a 10,000-paper database takes ~50 ms, so the JSON line of each annotation and log
entry is kept between writes and only documents reported changed through `invalidate` are encoded
again. The lines start out as the text read from disk, those that are their documents' (see
`format.LazyLines`), so this holds for the first write after opening too. Documents are written small (see
`packing`): a run of log entries is one line, kept as the line of its first entry, and encoded again whole when
one of them changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping
from functools import partial
from pathlib import Path

from tinydb import TinyDB
from tinydb.storages import Storage
from tinydb.table import Table

from ..files.atomic import FILE_MODE, Signature, atomic_write_bytes, mode_of, signature
from .blocks import Blocks
from .format import ANNOTATIONS, EVENTS, LISTS, RESOLUTIONS, DocLines, LazyLines, doc_line, layout
from .packing import packed_annotation, packed_run, runs


class InPlaceTable(Table):
    """A TinyDB table that changes the documents it is told to, in the stored table itself.

    TinyDB's own table copies the whole table twice on every insert or update (its ids to int and back): with
    100,000 annotations and as many log entries that was most of a star's 0.5 s. Here the updater works on a
    view of the stored table that takes int ids, so a change costs what it changes.
    """

    def _update_table(self, updater: Callable[[dict[int, Mapping]], None]) -> None:
        tables = self._storage.read()
        updater(_IntKeyed(tables.setdefault(self.name, {})))  # type: ignore[arg-type]
        self._storage.write(tables)
        self.clear_cache()


class _IntKeyed(MutableMapping):
    """A table stored under string ids, as TinyDB's updaters read and change it: by int id."""

    def __init__(self, table: dict[str, Mapping]) -> None:
        self.table = table

    def __getitem__(self, doc_id: int) -> Mapping:
        return self.table[str(doc_id)]

    def __setitem__(self, doc_id: int, doc: Mapping) -> None:
        self.table[str(doc_id)] = doc

    def __delitem__(self, doc_id: int) -> None:
        del self.table[str(doc_id)]

    def __contains__(self, doc_id: object) -> bool:
        return str(doc_id) in self.table

    def __iter__(self) -> Iterator[int]:
        return (int(doc_id) for doc_id in self.table)

    def __len__(self) -> int:
        return len(self.table)


class Tables(TinyDB):
    """TinyDB over the store's storage, its tables changed in place (`InPlaceTable`)."""

    table_class = InPlaceTable


class AtomicJSONStorage(Storage):
    """TinyDB storage over an in-memory dict; `write` persists atomically unless writes are deferred.

    The store defers writes while it applies one change through several tables, then calls
    `persist()` once, so a change and its log entry reach the disk together.
    """

    CACHED_TABLES = (ANNOTATIONS, EVENTS, RESOLUTIONS, LISTS)  # a list's ids are not encoded again at every write

    def __init__(self, path: Path, data: dict | None = None):
        self.path = Path(path)
        self.data: dict = data if data is not None else {}
        self.signature: Signature = None
        self.deferred = False
        self._lines: DocLines = {name: {} for name in self.CACHED_TABLES}
        self._blocks = {name: Blocks() for name in self.CACHED_TABLES}  # the lines joined a block at a time
        self._runs: dict[str, list[str]] = {}
        self._run_of: dict[str, str] = {}
        self._unread: LazyLines | None = None
        self._stale: list[tuple[str, str]] = []

    def replace_data(self, data: dict, sig: Signature, lines: LazyLines | None = None) -> None:
        """Data read from disk, with each document's line as read (found at the first write) when they are known
        to match it."""
        self.data, self.signature = data, sig
        self._lines = {name: {} for name in self.CACHED_TABLES}
        self._blocks = {name: Blocks() for name in self.CACHED_TABLES}
        self._runs: dict[str, list[str]] = {}  # first id of a packed run of log entries -> the ids of its entries
        self._run_of: dict[str, str] = {}  # id of a log entry in a packed run -> the run's first id
        self._unread = lines  # the lines as read, not looked at yet
        self._stale: list[tuple[str, str]] = []  # documents changed since, whose lines as read are not theirs

    def _read_lines(self) -> None:
        """Take the lines as read that are their documents' (see `format.LazyLines`), but those of documents changed
        since."""
        unread, stale = self._unread, self._stale
        self._unread, self._stale = None, []
        read = unread.get(self.data) if unread is not None else None
        if read is None:
            return
        lines, self._runs, whole = read
        self._lines = {name: dict(lines.get(name, {})) for name in self.CACHED_TABLES}
        for name, blocks in whole.items():
            if name in self._blocks:  # the lines of a block held whole are cut apart when it changes (see `Blocks`),
                self._blocks[name].seed(blocks, self._lines[name], cut=name != EVENTS)  # but the log's, kept lines
        self._run_of = {doc_id: first for first, ids in self._runs.items() for doc_id in ids}
        for table, doc_id in stale:
            self.invalidate(table, doc_id)

    def invalidate(self, table: str, doc_id: int | str) -> None:
        """The document was changed in place or removed: encode it again at the next write (with the other
        entries of its packed run, when it is in one)."""
        doc_id = str(doc_id)
        if self._unread is not None:
            self._stale.append((table, doc_id))
            return
        first = self._run_of.get(doc_id) if table == EVENTS else None
        for entry in self._runs.pop(first, []) if first is not None else [doc_id]:
            if table == EVENTS:
                self._run_of.pop(entry, None)
            self._lines[table].pop(entry, None)
            self._blocks[table].changed(entry)

    def encode(self) -> list[bytes]:
        """The file's bytes, in chunks (see `format.layout`)."""
        if self._unread is not None:
            self._read_lines()
        tables: dict[str, list[bytes]] = {}
        for name, table in self.data.items():
            cache = self._lines.get(name)
            if cache is None:
                tables[name] = [doc_line(doc_id, doc) for doc_id, doc in table.items()]
            else:
                tables[name] = self._blocks[name].lines(table, partial(self._lines_of, name, cache))
        return layout(tables)

    def _lines_of(self, name: str, cache: dict[str, bytes], docs: dict) -> list[bytes]:
        if name == EVENTS:
            return self._event_lines(docs, cache)
        return self._doc_lines(docs, cache, packed_annotation if name == ANNOTATIONS else dict)

    @staticmethod
    def _doc_lines(docs: dict, cache: dict[str, bytes], pack: Callable[[dict], dict]) -> list[bytes]:
        lines = []
        for doc_id, doc in docs.items():
            line = cache.get(doc_id)
            if line is None:
                line = cache[doc_id] = doc_line(doc_id, pack(doc))
            lines.append(line)
        return lines

    def _event_lines(self, table: dict, cache: dict[str, bytes]) -> list[bytes]:
        """The log's lines: those kept, and runs of the entries not written yet packed (see `packing`)."""
        lines: list[bytes] = []
        fresh: list[tuple[str, dict]] = []
        for doc_id, doc in table.items():
            line = cache.get(doc_id)
            if line is None:
                fresh.append((doc_id, doc))
                continue
            if fresh:
                lines.extend(self._pack(fresh, cache))
                fresh = []
            if line:  # b"": in the run written on the line before
                lines.append(line)
        if fresh:
            lines.extend(self._pack(fresh, cache))
        return lines

    def _pack(self, entries: list[tuple[str, dict]], cache: dict[str, bytes]) -> list[bytes]:
        lines = []
        for run in runs(entries):
            first = run[0][0]
            if len(run) == 1:
                lines.append(cache.setdefault(first, doc_line(first, run[0][1])))
                continue
            lines.append(cache.setdefault(first, doc_line(first, packed_run(run))))
            ids = [doc_id for doc_id, _ in run]
            self._runs[first] = ids
            for doc_id in ids[1:]:
                cache[doc_id] = b""
            self._run_of.update(dict.fromkeys(ids, first))
        return lines

    def read(self) -> dict:
        return self.data

    def write(self, data: dict) -> None:
        self.data = data
        if not self.deferred:
            self.persist()

    def persist(self) -> None:
        atomic_write_bytes(self.path, self.encode(), mode=mode_of(self.path, FILE_MODE))
        self.signature = signature(self.path)

    def changed_on_disk(self) -> bool:
        return signature(self.path) != self.signature

    def close(self) -> None:
        pass  # no handle is kept open between writes
