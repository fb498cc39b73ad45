"""The database file's layout (TinyDB JSON: table -> doc id -> document) and how a damaged one is recognised.

Tables: `meta` (one document holding `schema_version`, and the store's `undo_floor` and
`events_compacted` counters), `annotations` (one document per touched paper), `events` (the
change log) and, once a paper has been looked up online, `resolutions` (one document per paper: what
`readlist resolve` found, `Resolution.to_dict`) and, once a paper file has been opened, `lists` (one document
per paper file: see `lists`). Anything that does not parse and validate is `DamagedFile`; a resolution that does
not read back is only ignored (the paper is looked up again), since it is a cache, and so is a list's document
(the list is remembered again when it is next opened).

The file is written one document per line:

    {
    "meta":{
    "1":{"schema_version":3}
    },
    "annotations":{
    "1":{"id":"a1b2c3d4e5f6","starred":true,...},
    "2":{...}
    },
    "events":{
    }
    }

It is still plain TinyDB JSON (a newline is whitespace and never occurs inside a JSON string), but
each document's text can be found again by splitting lines, so the first write after opening a
10,000-paper file re-encodes only the documents that changed instead of all of them.

Since schema 3 documents are written small (`packing`): annotations without their default fields, and a run
of log entries of one change that differ only in their paper as one document; reading unpacks the runs.
"""

from __future__ import annotations

import contextlib
import json
import json.scanner
import re
from itertools import islice, repeat
from pathlib import Path
from typing import Any

import orjson

from . import blocks as table_blocks
from .annotation import STATUSES
from .note_edits import NOTE_EDIT
from .packing import BadRun, packed_run, packed_runs, unpack_events

SCHEMA_VERSION = 4
PACKED_SINCE = 3  # annotations without their default fields, runs of log entries packed (see `packing`)
META, ANNOTATIONS, EVENTS = "meta", "annotations", "events"
RESOLUTIONS = "resolutions"  # made with its first document: a readlist without it keeps it as it is
LISTS = "lists"  # the paper files opened with this database (see `lists`), made as RESOLUTIONS is


class DamagedFile(Exception):
    """The database file cannot be used as it is; the message says why in a few words."""


class NewerSchema(DamagedFile):
    """Written by a newer readlist with a schema this version does not know."""


class ForeignFile(DamagedFile):
    """Not a readlist database at all (a text file, another program's JSON): never moved or written over."""


def empty_data() -> dict[str, dict]:
    return {META: {"1": {"schema_version": SCHEMA_VERSION}}, ANNOTATIONS: {}, EVENTS: {}}


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # one instance: ~2x faster per document
_SCAN = json.scanner.make_scanner(json.JSONDecoder())  # the C scanner: parses one value at an index
_TABLE_LINE = re.compile(rb'"(\w+)":\{')  # bytes: \w is ASCII

# table -> doc id -> the document's line (b'"7":{...}', no comma); b"" for a log entry packed in the line of the
# run before it (see `packing`)
DocLines = dict[str, dict[str, bytes]]
# table -> its blocks of documents as the file holds them: the ids of each, and its lines joined (a view of the file's
# bytes), or None when they are in DocLines (see `_file_blocks`, `_log_blocks`)
FileBlocks = dict[str, list[tuple[list[str], memoryview | None]]]


# Half a character (a lone surrogate, read from a `\udfff` escape in a hand-made file) has no UTF-8 form: a
# document holding one is written with escapes, as it was read.
_ASCII_ENCODER = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))


def _encoded(data: dict | list | str) -> bytes:
    try:
        return _ENCODER.encode(data).encode("utf-8")
    except UnicodeEncodeError:
        return _ASCII_ENCODER.encode(data).encode("ascii")


def encode(data: dict | list | str) -> bytes:
    return _encoded(data)


def doc_line(doc_id: str, doc: dict) -> bytes:
    try:
        return b'"%s":%s' % (doc_id.encode(), orjson.dumps(doc))  # 5-10 times as fast as the standard encoder
    except TypeError:  # what orjson refuses (a number past 64 bits, half a character) is written as before
        return b'"%s":%s' % (doc_id.encode("utf-8", "backslashreplace"), _encoded(doc))


def layout(tables: dict[str, list[bytes]]) -> list[bytes]:
    """The file's bytes from each table's document lines (see the module docstring), as the chunks they are made of,
    to be written one after the other: joined, a database of 100,000 annotations was held twice more (56 MB) while
    it was written."""
    out = [b"{\n"]
    last = len(tables) - 1
    for n, (name, lines) in enumerate(tables.items()):
        out.append(encode(name) + b":{\n")
        for line in lines:
            out += (line, b",\n")
        if lines:
            out[-1] = b"\n"
        out.append(b"},\n" if n < last else b"}\n")
    out.append(b"}\n")
    return out


def split_lines(source: str | bytes) -> tuple[dict[str, dict], DocLines] | None:
    """Parse a file written in the one-document-per-line layout: (data, each document's line).

    Each document line is parsed on its own, so a line that is not exactly one document makes
    this return None (and the caller parses the file as ordinary JSON, keeping no lines).
    """
    raw = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
    tables = _table_lines(raw)
    if tables is None:
        return None
    data: dict[str, dict] = {}
    found: DocLines = {}
    for name, (ids, lines) in tables.items():
        docs = [_parse_doc(line, len(doc_id) + 3) for doc_id, line in zip(ids, lines, strict=True)]
        if None in docs or not all(map(is_doc_id, ids)):
            return None
        data[name], found[name] = dict(zip(ids, docs, strict=True)), dict(zip(ids, lines, strict=True))
        if len(data[name]) != len(lines):  # an id twice
            return None
    return data, found


def _table_lines(raw: bytes) -> dict[str, tuple[list[str], list[bytes]]] | None:
    """Each table's document ids and lines (b'"7":{...}', no comma) as the one-document-per-line layout has them,
    found without parsing a document: None when the file does not have the layout. Each line is cut from the
    file's bytes once (100,000 lines in about 50 ms); what it holds is for the caller to check."""
    spans = _table_spans(raw)
    return None if spans is None else {name: _cut(raw, start, end) for name, (start, end) in spans.items()}


def _table_spans(raw: bytes) -> dict[str, tuple[int, int]] | None:
    """Where each table's document lines are in the file's bytes ([start, end), the lines joined by ",\\n"), found
    without copying them: None when the file does not have the one-document-per-line layout."""
    if not raw.startswith(b"{\n") or not raw.endswith((b"\n}", b"\n}\n")):
        return None
    tables: dict[str, tuple[int, int]] = {}
    pos, end = 2, raw.rindex(b"\n}")  # end: the line break before the file's closing "}"
    while pos < end:
        stop = raw.index(b"\n", pos)
        header = _TABLE_LINE.fullmatch(raw, pos, stop)
        name = header and header.group(1).decode()
        close = raw.find(b"\n}", stop)  # the table's closing line: no document's line starts with "}"
        after = raw.find(b"\n", close + 1)
        if not name or name in tables or close < 0 or raw[close + 1 : after] != (b"}" if after == end else b"},"):
            return None
        start = stop + 1
        if close > start and (
            raw[start : start + 1] != b'"' or raw.count(b"\n", start, close) != raw.count(b',\n"', start, close)
        ):
            return None  # each line starts with '"', and no line holds a line break (each one is between two lines)
        tables[name] = (start, close)
        pos = after + 1
    return tables if pos == end + 1 else None


def _cut(raw: bytes, start: int, end: int) -> tuple[list[str], list[bytes]]:
    """The ids and lines of a table's document lines at [start, end) (see `_table_spans`)."""
    lines = raw[start:end].split(b",\n") if end > start else []
    return [line[1 : line.find(b'":{', 1)].decode("latin-1") for line in lines], lines  # never fails


def _file_blocks(
    raw: bytes, start: int, end: int, table: dict[str, dict]
) -> tuple[dict[str, bytes], list[tuple[list[str], memoryview | None]]] | None:
    """A table's document lines at [start, end) of the file's bytes, in blocks of BLOCK documents in the table's order
    (see `blocks`): a block whose lines are its documents as orjson writes them (compared at once) is a view of the
    file's bytes, no line cut from it (100,000 lines in about 0.1 s, none held twice); the lines of another block that
    are their documents' (or read back as them) are cut (see `_block_lines`), and the block is None (joined from
    them). None when the lines are not the table's documents in its order (one removed since, say), the documents
    added since aside, which come last."""
    view, size = memoryview(raw), table_blocks.BLOCK
    items = list(table.items())
    kept: dict[str, bytes] = {}
    blocks: list[tuple[list[str], memoryview | None]] = []
    pos, at = start, 0
    while pos < end and at < len(items):
        docs = items[at : at + size]
        at += size
        written = _written(docs)
        stop = pos + len(written)
        if written and raw.startswith(written, pos) and (stop == end or raw.startswith(b",\n", stop)):
            blocks.append(([doc_id for doc_id, _ in docs], view[pos:stop]))
        else:
            found = _block_lines(raw, pos, end, docs, kept)
            if found is None:
                return None
            ids, stop = found
            blocks.append((ids, None))
        pos = stop + 2
    if pos < end:  # lines past the table's documents
        return None
    return kept, blocks


def _written(docs: list[tuple[str, dict]]) -> bytes:
    """The lines of these documents as orjson writes them, joined; b"" when orjson refuses one."""
    dumps = orjson.dumps
    try:
        return b",\n".join([b'"%s":%s' % (doc_id.encode(), dumps(doc)) for doc_id, doc in docs])
    except TypeError:
        return b""


def _block_lines(
    raw: bytes, pos: int, end: int, docs: list[tuple[str, dict]], kept: dict[str, bytes]
) -> tuple[list[str], int] | None:
    """The lines from `pos` on, one for each of these documents until the table's lines `end`: those that are their
    documents' (`_line_of`) put in `kept`; the ids of the documents walked and where the last line ends. None when a
    line is not its document's (not of its id)."""
    ids: list[str] = []
    stop = pos
    for doc_id, doc in docs:
        if pos >= end:  # documents added since the file was read
            break
        if not raw.startswith(b'"%s":' % doc_id.encode(), pos):
            return None
        stop = raw.find(b"\n", pos, end)  # a line holds no line break: the one after it ends it
        stop = end if stop < 0 else stop - 1
        line = raw[pos:stop]
        if _line_of(line, doc_id, doc):
            kept[doc_id] = line
        ids.append(doc_id)
        pos = stop + 2
    return ids, stop


def _parse_doc(line: bytes, start: int) -> dict | None:
    """The document a line holds from `start` on (its "{"); None when the rest of the line is not one JSON object.
    orjson reads a line three times as fast as the standard scanner, which reads what orjson refuses (NaN, a lone
    surrogate, a number past 64 bits)."""
    if line[start - 2 : start + 1] != b'":{':
        return None
    try:
        return orjson.loads(line[start:])
    except orjson.JSONDecodeError:
        return _parse_doc_slowly(line, start)


def _parse_doc_slowly(line: bytes, start: int) -> dict | None:
    """The document a line holds from `start` on (its "{"), read by the standard scanner, which reads what orjson
    refuses; None when the rest of the line is not one JSON object."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    try:
        doc, stop = _SCAN(text, start)
    except (StopIteration, ValueError, RecursionError):
        return None
    return doc if stop == len(text) and isinstance(doc, dict) else None


def decode(raw: bytes) -> dict[str, dict]:
    """Parse and check the shape of a database file. Raises DamagedFile (or NewerSchema)."""
    return decode_lines(raw)[0]


def _parsed_quickly(raw: bytes) -> Any:
    """The file parsed by orjson (0.17 s for 100,000 documents) when it opens as a JSON object; None when it does
    not, or orjson refuses it (then `_parsed` reads it as before, saying what is wrong)."""
    if raw.lstrip(b" \t\r\n")[:1] != b"{":
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _parsed(raw: bytes) -> Any:
    """The file parsed by the standard library, or DamagedFile or ForeignFile saying what is wrong with it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not starts_as_ours(raw):  # a picture, a compressed file: somebody else's
            raise ForeignFile("not a readlist database (not UTF-8 text)") from None
        raise DamagedFile(f"not UTF-8 at byte {exc.start}") from None
    if not text.lstrip("\ufeff \t\r\n").startswith("{"):
        if starts_as_ours(raw):  # NUL bytes before the data: crash debris
            raise DamagedFile("NUL bytes before the data")
        raise ForeignFile("not a readlist database (not a JSON object)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        what = exc.msg.removesuffix(" at")  # "Unterminated string starting at": the place follows
        problem = f"not valid JSON ({what} at line {exc.lineno} column {exc.colno})"
    except RecursionError:
        problem = "JSON nested too deeply to read"
    if not starts_as_ours(raw):  # JSON with comments, another program's file cut short: not ours
        raise ForeignFile(f"not a readlist database ({problem})")
    raise DamagedFile(problem)


def decode_lines(
    raw: bytes, path: Path | None = None, log_packed: bool = False
) -> tuple[dict[str, dict], LazyLines | None]:
    """`decode`, plus each document's line when the file has the one-document-per-line layout (found when asked:
    from the file at `path` read again, when given, else from `raw`, kept until then). With `log_packed`, the
    log's packed runs are checked but left packed when the lines are found (`LazyLines.log_packed`): a command
    that never reads the log makes none of its entries (100,000 of them, 50 ms of CPU and 28 MB).

    DamagedFile for a file that was readlist's (it starts as a readlist database does) and is damaged, or
    that holds nothing but white space and NUL bytes (what a crash leaves); ForeignFile for any other file.
    """
    if not raw.strip(b" \t\r\n\x00"):
        raise DamagedFile("the file holds only NUL bytes" if b"\x00" in raw else "the file is empty")
    data = _parsed_quickly(raw)
    quick = data is not None
    if data is None:
        data = _parsed(raw)
    check_tables(data)
    version = schema_version(data)
    if version > SCHEMA_VERSION:
        raise NewerSchema(f"written by a newer readlist (schema {version}; this version reads up to {SCHEMA_VERSION})")
    if version == SCHEMA_VERSION:
        check_current(data)  # before unpacking: a run's entries are checked once, in the run's document
    runs: dict[str, list[str]] = {}
    packed = log_packed and quick and version == SCHEMA_VERSION  # unpacked by `records` when first asked for
    if version >= PACKED_SINCE and EVENTS in data:
        try:
            if packed:
                runs = packed_runs(data[EVENTS])
            else:
                data[EVENTS], runs = unpack_events(data[EVENTS])
        except BadRun as exc:
            raise DamagedFile(f"JSON of the wrong shape ({exc})") from None
    return data, (LazyLines(raw, runs, path, packed=bool(packed and runs)) if quick else None)


def check_tables(data: Any) -> None:
    """Raises DamagedFile (or ForeignFile) unless the data is an object of tables of documents by id."""
    if not isinstance(data, dict):
        raise DamagedFile(f"JSON of the wrong shape (a {type(data).__name__}, not an object of tables)")
    if data and not data.keys() & {META, ANNOTATIONS, EVENTS}:
        raise ForeignFile("not a readlist database (JSON without its tables)")
    for name, table in data.items():
        if not isinstance(table, dict):
            raise DamagedFile(f"JSON of the wrong shape (table {name!r} is not an object)")
        for doc_id, doc in table.items():
            if not is_doc_id(doc_id) or not isinstance(doc, dict):
                raise DamagedFile(f"JSON of the wrong shape (table {name!r} has a bad document {cut_key(doc_id)!r})")


class LazyLines:
    """Each document's line of a file in the one-document-per-line layout, found when first asked for (at the first
    write), for the documents as they are then. A line is kept when it is its document as orjson writes it (as
    readlist wrote it: compared, not parsed), or else when it reads back as its document. So a command that only
    reads does not look for them, and the first write parses no line readlist wrote: 100,000 lines found and
    checked in about 0.1 s of CPU (parsing each took 0.4 s).

    Given the file's path, they do not keep its bytes meanwhile (28 MB for 100,000 annotations, held as long as the
    app runs without a write): the file is read again, 10 ms, and used when it has the size read. A file written
    over since (of that size) costs nothing but its lines: each is kept only when it is its document."""

    def __init__(self, raw: bytes, runs: dict[str, list[str]], path: Path | None = None, packed: bool = False) -> None:
        self._raw: bytes | None = raw if path is None else None
        self._path, self._size = path, len(raw)
        self.runs = runs  # the packed runs of log entries read: first id -> the ids of its entries
        self.log_packed = packed  # the data read holds the runs packed: `get` is given them unpacked (`unpacked`)

    def get(self, data: dict[str, dict]) -> tuple[DocLines, dict[str, list[str]], FileBlocks] | None:
        """The lines of the documents `data` holds as they were read, the packed runs of log entries (first
        id -> the ids of its entries, whose lines are b"": in the run's) whose lines are kept, and the tables found
        in blocks (see `_file_blocks`: the lines of a block that is a view of the file are not among the lines);
        None when the file does not have the layout. The file's bytes are let go but for the views of them."""
        raw, self._raw = self._raw, None
        path, self._path = self._path, None
        if path is not None:
            with contextlib.suppress(OSError):
                raw = path.read_bytes()
        spans = _table_spans(raw) if raw is not None and len(raw) == self._size else None
        if spans is None:
            return None
        lines: DocLines = {}
        runs: dict[str, list[str]] = {}
        views: FileBlocks = {}
        for name, (start, end) in spans.items():
            table = data.get(name, {})
            if name != EVENTS or not self.runs:
                found = _file_blocks(raw, start, end, table)
                if found is None:
                    lines[name] = _kept(*_cut(raw, start, end), table)
                else:
                    lines[name], views[name] = found
                continue
            ids, table_lines = _cut(raw, start, end)
            kept = lines[name] = {}
            for doc_id, line in zip(ids, table_lines, strict=True):
                run = self.runs.get(doc_id)
                doc = table.get(doc_id) if run is None else _run_doc(table, run)
                if doc is None or not _line_of(line, doc_id, doc):
                    continue
                kept[doc_id] = line
                if run is not None:
                    runs[doc_id] = run
                    kept.update(dict.fromkeys(run[1:], b""))
            blocks = _log_blocks(memoryview(raw), start, ids, table_lines, self.runs, kept, table)
            if blocks is not None:
                views[name] = blocks
        return lines, runs, views


def _log_blocks(
    view: memoryview,
    start: int,
    ids: list[str],
    lines: list[bytes],
    runs: dict[str, list[str]],
    kept: dict[str, bytes],
    log: dict[str, dict],
) -> list[tuple[list[str], memoryview | None]] | None:
    """The log's lines (from `start` in the file's bytes) in blocks of about BLOCK entries, a packed run's entries in
    the block of its line: a block whose every line is kept (in `kept`) is a view of the file's bytes, not joined
    again; else None. None when the log's entries are not its lines' in their order (entries added since aside,
    which come last)."""
    order = iter(log)
    blocks: list[tuple[list[str], memoryview | None]] = []
    entries: list[str] = []
    first = pos = start
    whole = True
    for doc_id, line in zip(ids, lines, strict=True):
        run = runs.get(doc_id) or [doc_id]
        if list(islice(order, len(run))) != run:
            return None
        entries += run
        whole = whole and doc_id in kept
        pos += len(line)
        if len(entries) >= table_blocks.BLOCK:
            blocks.append((entries, view[first:pos] if whole else None))
            entries, whole, first = [], True, pos + 2
        pos += 2
    if entries:
        blocks.append((entries, view[first : pos - 2] if whole else None))
    return blocks


def _kept(ids: list[str], lines: list[bytes], table: dict[str, dict]) -> dict[str, bytes]:
    """The lines that are their documents' (`_line_of`, inlined for the usual case: 100,000 lines in 60 ms)."""
    kept = {}
    dumps = orjson.dumps
    for doc_id, line in zip(ids, lines, strict=True):
        doc = table.get(doc_id)
        if doc is None:
            continue
        try:
            written = dumps(doc)
        except TypeError:
            written = b""
        if (written and len(line) - len(written) == len(doc_id) + 3 and line.endswith(written)) or _line_of(
            line, doc_id, doc
        ):
            kept[doc_id] = line
    return kept


def _run_doc(table: dict[str, dict], run: list[str]) -> dict | None:
    """The document a packed run of these log entries is written as; None when one of them is gone."""
    entries = [(doc_id, table.get(doc_id)) for doc_id in run]
    return packed_run(entries) if all(doc is not None for _, doc in entries) else None  # type: ignore[arg-type]


def _line_of(line: bytes, doc_id: str, doc: dict) -> bool:
    """Whether a line found by `_table_lines` (starting '"7":' for its id) is the document's: as orjson writes it
    (compared, not parsed), or read back as it."""
    start = len(doc_id) + 3
    try:
        written = orjson.dumps(doc)
    except TypeError:  # what orjson refuses: read back instead
        written = b""
    if written and len(line) - len(written) == start and line.endswith(written):
        return True
    return _parse_doc(line, start) == doc


_OURS = re.compile(rb'\{\s*"(?:meta|annotations|events|_default)"\s*:')


def starts_as_ours(raw: bytes) -> bool:
    """Whether the file's first bytes are those of a readlist database (a NUL or white space before them aside)."""
    return _OURS.match(raw[:4096].lstrip(b"\x00 \t\r\n").removeprefix(b"\xef\xbb\xbf")) is not None


MAX_DOC_ID = 18  # digits: TinyDB reads a document id as an int; 10**18 documents are more than any file holds


def is_doc_id(key: str) -> bool:
    """A TinyDB document id as written: ASCII digits (not '١٢', which isdigit() takes), and not thousands of them."""
    return key.isascii() and key.isdigit() and len(key) <= MAX_DOC_ID


def cut_key(text: str) -> str:
    """A document id as a message names it: a long one cut in the middle."""
    return text if len(text) <= 24 else f"{text[:10]}…{text[-10:]}"


def schema_version(data: dict[str, Any]) -> int:
    meta = data.get(META)
    if not meta:
        if any(table for name, table in data.items() if name != "_default"):
            raise DamagedFile("JSON of the wrong shape (no meta table with a schema_version)")
        return SCHEMA_VERSION  # an empty TinyDB file: nothing to migrate
    versions = [doc.get("schema_version") for doc in meta.values()]
    if len(versions) != 1 or type(versions[0]) is not int or versions[0] < 1:
        raise DamagedFile("JSON of the wrong shape (meta table without one integer schema_version)")
    return versions[0]


FIELD_TYPES = {
    "id": (str,),
    "starred": (bool,),
    "status": (str,),
    "tags": (list,),
    "note": (str,),
    "title": (str, type(None)),
    "created": (str, type(None)),
    "updated": (str, type(None)),
    "read_at": (str, type(None)),
    "snippet": (str,),
    "sketch": (str,),
}


_ANY = (object,)  # the type of a field FIELD_TYPES does not name (a newer readlist's): anything


def check_current(data: dict[str, Any]) -> None:
    types_of = FIELD_TYPES.get
    for doc_id, doc in data.get(ANNOTATIONS, {}).items():
        if not isinstance(doc.get("id"), str) or not doc["id"]:
            raise DamagedFile(f"JSON of the wrong shape (annotation {doc_id} has no paper id)")
        # the fields it has (a few, written small), each value's type checked at C speed: 100,000 in 35 ms (70)
        if not all(map(isinstance, doc.values(), map(types_of, doc, repeat(_ANY)))):
            key, value = next((key, value) for key, value in doc.items() if not isinstance(value, types_of(key, _ANY)))
            raise DamagedFile(f"JSON of the wrong shape (annotation {doc_id}: {key} is {type(value).__name__})")
        if doc.get("status", "unread") not in STATUSES:
            raise DamagedFile(f"JSON of the wrong shape (annotation {doc_id}: unknown status {doc['status']!r})")
        tags = doc.get("tags")
        if tags and not all(map(isinstance, tags, repeat(str))):
            raise DamagedFile(f"JSON of the wrong shape (annotation {doc_id}: a tag is not text)")
    for doc_id, doc in data.get(EVENTS, {}).items():
        if not good_event(doc):
            raise DamagedFile(f"JSON of the wrong shape (event {doc_id} is malformed)")
    for doc in data.get(META, {}).values():
        for key in META_COUNTERS:
            if key in doc and type(doc[key]) is not int:
                raise DamagedFile(f"JSON of the wrong shape (meta {key} is {type(doc[key]).__name__})")


META_COUNTERS = ("undo_floor", "events_compacted")
_EVENT_TEXT = ("time", "paper", "action", "group")


def good_event(doc: dict[str, Any]) -> bool:
    """A log entry of the shape undo, stats and merge read: texts where texts go, and before/after values
    of the types the annotation fields have."""
    if any(key in doc and not isinstance(doc[key], str) for key in _EVENT_TEXT):
        return False
    if not isinstance(doc.get("undoes"), str | None):
        return False
    for side in ("before", "after"):
        values = doc.get(side, {})
        if not isinstance(values, dict):
            return False
        for key, value in values.items():
            types = FIELD_TYPES.get(key)
            if types is None or (key == "id") != (doc.get("action") == "reattach"):  # only fields undo can restore
                return False
            if not isinstance(value, types):
                return False
            if key == "status" and value not in STATUSES:
                return False
            if key == "tags" and not all(isinstance(tag, str) for tag in value):
                return False
    return _good_note_edit(doc.get(NOTE_EDIT, {}))


def _good_note_edit(edit: Any) -> bool:
    """A note edit of the shape undo and merge read (see note_edits): digests, and where its text is kept, the
    place and both texts."""
    if not isinstance(edit, dict):
        return False
    if not edit:
        return True
    if not isinstance(edit.get("was"), str) or not isinstance(edit.get("is"), str):
        return False
    parts = edit.get("parts", [])
    if not isinstance(parts, list) or not all(isinstance(part, str) for part in parts):
        return False
    kept = [key for key in ("at", "cut", "put") if key in edit]
    if not kept:  # trimmed: its digests alone
        return True
    at, texts = edit.get("at"), (edit.get("cut"), edit.get("put"))
    return type(at) is int and at >= 0 and all(isinstance(text, str) for text in texts)
