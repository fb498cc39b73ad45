"""The search index saved in the user cache directory, keyed by the papers' content.

A file holds one JSON header line (format version, key, section sizes, what was checked of the index when it was
written, a CRC-32 of what follows and of those checks) and then the raw arrays: the index's, then the lookups a search
makes of them (see index.Lookups). A missing, stale or damaged file is ignored and rebuilt; writing is atomic and best
effort.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import threading
import zlib
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..files.cache import cache_dir, papers_key, prune, write_atomic
from ..papers.paper import Paper
from ..text.tokens import TOKENS_VERSION
from . import build as builder
from .index import K1, B, Lookups, SearchIndex, length_order
from .postings import IndexData, Postings

# 6: the authors' names are indexed (`author:`); 7: a CRC-32 of the terms and arrays; 8: the lookups (norms, terms by
# length), and the papers' and terms' order checked when written
FORMAT = 8
MAGIC = b"readlist-search-index"
KEEP = 8  # cached indexes kept; the least recently written go first
SLICE = 1 << 16  # terms checked at a time when an index is written (see _checked)
CHUNK = 1 << 20  # bytes read into an array at a time (see _read_array)
_SECTIONS = (("body.starts", "I"), ("body.docs", "I"), ("body.tfs", "H"), ("title.starts", "I"),
             ("title.docs", "I"), ("lengths", "I"), ("authors.starts", "I"), ("authors.docs", "I"),
             ("norms", "d"), ("by_length", "I"))  # fmt: skip
NORMS = [K1, B]  # the constants the norms kept were made with: others make the file stale


def default_dir() -> Path:
    return cache_dir("search")


def content_key(papers: Sequence[Paper]) -> str:
    """The papers' ids and given titles, and their authors and titles found online, which the index holds and no
    id hashes."""
    # Most papers have no record, hence no names: "" without reading its fields (38 ms of CPU at 100k, then 13), and
    # a list where none has one is "" for each without a step for each paper (3 ms at 100k, now 1).
    records = [paper.record for paper in papers]
    if records.count(None) == len(records):
        names = "\n" * (len(records) - 1)
    else:
        names = "\n".join(
            "" if record is None else "\x1f".join((*record.authors, record.found_title or "")) for record in records
        )
    authors = hashlib.blake2b(names.encode("utf-8", "surrogatepass"), digest_size=16)
    return papers_key(f"format {FORMAT} tokens {TOKENS_VERSION} authors {authors.hexdigest()}", papers)


@dataclass(frozen=True, eq=False)
class Cached(IndexData):
    """Index data read from a cache file, with the lookups kept beside it (see index.Lookups)."""

    lookups: Lookups | None = None


def _arrays(data: IndexData, lookups: Lookups | None = None) -> dict[str, array]:
    if lookups is None:
        lookups = data.lookups if isinstance(data, Cached) and data.lookups is not None else Lookups.of(data)
    return {
        "body.starts": data.body.starts,
        "body.docs": data.body.docs,
        "body.tfs": data.body.tfs,
        "title.starts": data.title.starts,
        "title.docs": data.title.docs,
        "lengths": data.lengths,
        "authors.starts": data.authors.starts,
        "authors.docs": data.authors.docs,
        "norms": lookups.norms,
        "by_length": lookups.by_length,
    }


def save(data: IndexData, key: str, path: Path, titled: int | None = None, lookups: Lookups | None = None) -> None:
    """Write the index data to `path`; `titled`: how many of its papers have a title of their own, `lookups`: those of
    the data when already made (see Lookups)."""
    terms = "\n".join(data.terms).encode("utf-8")
    arrays = _arrays(data, lookups)
    body = [terms, *(memoryview(arrays[name]).cast("B") for name, _ in _SECTIONS)]
    header = {"format": FORMAT, "key": key, "bm25": NORMS, "terms": len(terms), "count": len(data.terms)}
    header.update(_checked(data), titled=titled)
    header["crc32"] = _crc32([*body, _checks(header)])
    header.update({name: len(arrays[name]) for name, _ in _SECTIONS})
    write_atomic(path, [_head_line(MAGIC, header), *body])


def _crc32(chunks) -> int:
    """The CRC-32 of the chunks' bytes, one after the other: any damaged byte of a cache file is seen by it, in 20 ms
    for a 100k list's 70 MB, without holding the interpreter (zlib lets other threads run meanwhile)."""
    crc = 0
    for chunk in chunks:
        crc = zlib.crc32(chunk, crc)
    return crc


class _Crc32(threading.Thread):
    """The CRC-32 of a buffer, made in a thread of its own while the caller goes on: zlib lets go of the interpreter
    meanwhile, so the 16-20 ms it takes over a 100k list's 70 MB run beside the reading of its terms."""

    def __init__(self, buffer) -> None:
        super().__init__(name="readlist-index-crc", daemon=True)
        self.buffer = buffer
        self.value: int | None = None
        self.start()

    def run(self) -> None:
        self.value = zlib.crc32(self.buffer)
        self.buffer = None  # the file's pages, let go of by the caller once the CRC-32 is made

    def result(self) -> int | None:
        self.join()
        return self.value


def _head_line(magic: bytes, header: dict) -> bytes:
    """A cache file's first line: what it is, then a JSON header saying for what and how big."""
    return magic + b" " + json.dumps(header).encode() + b"\n"


def _read_head(handle, magic: bytes, expected: dict) -> dict | None:
    """The header of a cache file of this kind holding the `expected` values, or None.
    Raises ValueError (or RecursionError) for a header that is no JSON."""
    line = handle.readline()
    if not line.startswith(magic + b" "):
        return None
    header = json.loads(line[len(magic) + 1 :])
    if not isinstance(header, dict) or any(header.get(k) != v for k, v in expected.items()):
        return None
    return header


def _expected(key: str) -> dict:
    """What a header must say for its file to be read: this format, these papers, norms made as ours are."""
    return {"format": FORMAT, "key": key, "bm25": NORMS}


def load(path: Path, key: str) -> Cached | None:
    """The cached index data, or None if the file is missing, for other content, or damaged."""
    try:
        with open(path, "rb") as handle:
            header = _read_head(handle, MAGIC, _expected(key))
            if header is None:
                return None
            raw_terms = handle.read(header["terms"])
            loaded = {name: _read_array(handle, code, header[name]) for name, code in _SECTIONS}
            arrays = (memoryview(values).cast("B") for values in loaded.values())
            if handle.read(1) or _crc32([raw_terms, *arrays, _checks(header)]) != header["crc32"]:
                return None
            terms = tuple(raw_terms.decode("utf-8").split("\n")) if header["count"] else ()
            return _cached(terms, loaded, header)
    except (OSError, ValueError, KeyError, TypeError, EOFError, UnicodeDecodeError, RecursionError):
        return None


def load_mapped(path: Path, key: str) -> Cached | None:
    """`load`, the arrays views of the file mapped in memory, for a command that reads only what its query touches:
    at 100,000 papers, 66 MB are not copied into the process (40 ms of CPU), and the pages of its arrays that a search
    never reads are not held (the CRC-32 reads them all once: let go after). The CRC-32 is made in a thread beside
    the reading of the terms (see _Crc32)."""
    try:
        with open(path, "rb") as handle:
            header = _read_head(handle, MAGIC, _expected(key))
            if header is None:
                return None
            start = handle.tell()
            mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        view = memoryview(mapping)
        end = start + header["terms"]
        sizes = [array(code).itemsize * header[name] for name, code in _SECTIONS]
        if end + sum(sizes) != len(view):
            return None
        crc = _Crc32(view[start:])
        try:
            raw_terms = bytes(view[start:end])
            loaded = {}
            for (name, code), size in zip(_SECTIONS, sizes, strict=True):
                loaded[name] = view[end : end + size].cast(code)  # an item unaligned in the file is copied as read
                end += size
            terms = tuple(raw_terms.decode("utf-8").split("\n")) if header["count"] else ()
            data = _cached(terms, loaded, header)
        finally:
            whole = crc.result()
        if data is None or zlib.crc32(_checks(header), whole) != header["crc32"]:
            return None
        if hasattr(mmap, "MADV_DONTNEED"):
            mapping.madvise(mmap.MADV_DONTNEED)  # the pages read by the CRC-32: read again from the file if needed
    except (OSError, ValueError, KeyError, TypeError, EOFError, UnicodeDecodeError, RecursionError):
        return None
    return data


def _cached(terms: tuple[str, ...], loaded: dict, header: dict) -> Cached | None:
    """The index data of the terms and arrays read from a cache file, None when they cannot be an index."""
    data = Cached(
        terms=terms,
        body=Postings(loaded["body.starts"], loaded["body.docs"], loaded["body.tfs"]),
        title=Postings(loaded["title.starts"], loaded["title.docs"]),
        lengths=loaded["lengths"],
        authors=Postings(loaded["authors.starts"], loaded["authors.docs"]),
        lookups=Lookups(loaded["norms"], loaded["by_length"], header["titled"]),
    )
    return data if _sound(data, header) else None


def _read_array(handle, code: str, count: int) -> array:
    """`count` values of type `code` read from `handle`, a megabyte at a time: the interpreter is held for each read,
    and a 100k list's 40 MB of postings read at once held it for 50 ms, the UI waiting meanwhile.
    Raises EOFError when the file ends first."""
    values = array(code)
    step = max(1, CHUNK // values.itemsize)
    for at in range(0, count, step):
        values.fromfile(handle, min(step, count - at))
    return values


def _checked(data: IndexData) -> dict:
    """What a reader learns of an index only by reading each of its terms and each term's last paper (35 ms at 100,000
    papers, the first search waiting): the greatest paper the terms' postings end with (-1 for none; each term's
    papers ascend, so it is the greatest of all), and whether the terms ascend. Measured as the index is written, kept
    in its file's header under the CRC-32 (see _sound). The terms are read a slice at a time, and so are the postings'
    ends (all at once held the interpreter for 16 ms at 100k)."""
    n, last = len(data.terms), -1
    for postings in (data.body, data.title, data.authors):
        starts, docs = postings.starts, postings.docs
        for at in range(1, n + 1, SLICE) if docs else ():  # a slice at a time: each C call holds the interpreter
            lasts = map(docs.__getitem__, map((-1).__add__, starts[at : at + SLICE]))  # an empty term's -1: the last
            last = max(last, max(lasts))
    terms = data.terms
    ascending = all(
        terms[at : at + SLICE + 1] == tuple(sorted(terms[at : at + SLICE + 1])) for at in range(0, n, SLICE)
    )
    return {"last": last, "ascending": ascending}


def _checks(header: dict) -> bytes:
    """The checks a header holds (see _checked) and its count of titled papers, as the CRC-32 covers them after the
    terms and arrays."""
    return json.dumps([header["last"], header["ascending"], header["titled"]]).encode()


def _sound(data: Cached, header: dict) -> bool:
    """Whether data read from a cache file can be an index of `data.size` papers: each of its postings starts at 0
    and ends with its papers, and by what was checked when it was written (see _checked), each term's papers are
    among the list's and the terms ascend. Its CRC-32, checked too, says the file is as written."""
    n, size = len(data.terms), data.size
    for postings in (data.body, data.title, data.authors):
        starts, docs = postings.starts, postings.docs
        if len(starts) != n + 1 or starts[0] != 0 or starts[-1] != len(docs):
            return False
    lookups = data.lookups
    return (
        len(data.body.tfs or ()) == len(data.body.docs)
        and header["last"] < size
        and header["ascending"] is True
        and lookups is not None
        and len(lookups.norms) == size
        and len(lookups.by_length) == n
        and (lookups.titled is None or (type(lookups.titled) is int and 0 <= lookups.titled <= size))
    )


LENGTHS_MAGIC = b"readlist-related-lengths"


def lengths_path(index: SearchIndex) -> Path | None:
    """Where the related papers' vector lengths for this index are kept: beside its cache file."""
    return index.cache_file.with_suffix(".len") if index.cache_file is not None else None


def save_lengths(values: array, version: int, path: Path) -> None:
    """Best effort: a read-only or full cache directory only costs the next run the time to measure again."""
    header = {"version": version, "key": path.stem, "count": len(values)}
    try:
        write_atomic(path, [_head_line(LENGTHS_MAGIC, header), memoryview(values).cast("B")])
        prune(path.parent, "*.len", KEEP)
    except OSError:
        pass


def load_lengths(path: Path, version: int, size: int) -> array | None:
    """The saved lengths, or None if the file is missing, for other papers or another version, or damaged."""
    try:
        with open(path, "rb") as handle:
            if _read_head(handle, LENGTHS_MAGIC, {"version": version, "key": path.stem, "count": size}) is None:
                return None
            values = array("d")
            values.fromfile(handle, size)
            if handle.read(1):
                return None
    except (OSError, ValueError, TypeError, EOFError, RecursionError):
        return None
    return values if all(value > 0.0 for value in values) else None


def load_or_build(
    papers: Sequence[Paper],
    cache_dir: Path | None = None,
    cancelled: threading.Event | None = None,
    building: Callable[[], None] | None = None,
    mapped: bool = False,
    save_later: bool = False,
) -> SearchIndex:
    """The search index for these papers, from the cache when it holds one (`mapped`: see `load_mapped`), else built
    (and cached); `building` is called before a build (none in the cache, or a damaged one), which takes a while.
    `save_later`: an index built is cached by `save_built`, which the caller runs once it has used it."""
    papers = tuple(papers)
    directory = cache_dir if cache_dir is not None else default_dir()
    key = content_key(papers)
    path = directory / f"{key}.idx"
    data = load_mapped(path, key) if mapped else load(path, key)
    if data is not None and data.size == len(papers):
        index = SearchIndex(papers, data, data.lookups)
    else:
        if building is not None:
            building()
        data = builder.build(papers, cancelled)
        index = SearchIndex(papers, data)
        index.unsaved = (data, key, path)
        if not save_later:
            save_built(index)
    index.cache_file = path
    return index


def save_built(index: SearchIndex) -> None:
    """Cache the index load_or_build built, if it has not yet (best effort: a read-only or full cache directory only
    costs the next run a rebuild)."""
    unsaved, index.unsaved = index.unsaved, None
    if unsaved is None:
        return
    data, key, path = unsaved
    try:
        # the length norms the index made as it was built, not made again
        save(data, key, path, index.fields.titled, Lookups(index.norms, length_order(data.terms)))
        prune(path.parent, "*.idx", KEEP)
    except OSError:
        pass
