"""What reading a big text paper file found, saved in the user cache directory keyed by the file, so that reading
it again only cuts its papers out of it.

Reading a text file of 100,000 papers costs about a second of CPU, most of it finding where its paragraphs are
and hashing each into its id. Saved here for each paper: its id, paragraph number, where a title line would end,
and where its paragraph's block is in the file's bytes (38 bytes a paper, 3.8 MB at 100k: the file's text is not
copied, which would be a second 114 MB and read slower). Read again (0.37 s at 100k), each block is decoded
where it lies in the file, read a megabyte at a time, and its lines joined as before; its id is the one found
then. The key covers the file's path, size and modification time (in nanoseconds: a save changes them), the
format asked for and the readers' code, as list_cache.py's does, and a CRC-32 of the file's bytes is checked
before its ids are trusted (0.07 s at 100k: a file rewritten with the same size and modification time, as
`cp -p` or a sync tool restoring times may leave it, is read whole, never given its old papers' ids); a damaged
cache file (its checksum differs) is ignored and replaced, and a file that changes while it is read again is read
whole. Only a file read as UTF-8
whose lines do not end in "\r\n" is cached (its places in the text read are then its bytes'); the others are
read as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..files.cache import cache_dir, prune, write_atomic
from .list_cache import checksum, code_digest
from .paper import PaperList
from .reader import Layout, parse_again
from .source import file_stamp

FORMAT = 2  # 2: the file's CRC-32 in the header
KEEP = 8  # files' layouts kept; the least recently written go first
MIN_PAPERS = 1000  # a smaller file reads about as fast as its layout loads
_UTF8_BOM = b"\xef\xbb\xbf"
_ID_BYTES = 6  # a paper id's 12 hex digits
_NUMBERS = "q"  # the array type of the numbers, cuts, starts and sizes
_BATCH = 8192  # ids made bytes at a time


def key(path: Path, stamp: tuple[int, int], fmt: str | None) -> str:
    """The cache file's name for the text file at `path` with the `file_stamp` `stamp`, read as UTF-8 in the
    format `fmt` (None: the one its content shows, which a file that read as text once shows again)."""
    what = [FORMAT, code_digest(), str(path), os.path.abspath(path), *stamp, fmt]
    return hashlib.blake2b(json.dumps(what).encode(), digest_size=16).hexdigest()


def save(
    path: Path,
    stamp: tuple[int, int],
    fmt: str | None,
    papers: PaperList,
    layout: Layout,
    directory: Path | None = None,
) -> None:
    """Save what reading the file at `path` with the stamp `stamp` found (`papers`, its sidecars aside, and
    `layout`), if the layout's places are the file's bytes' and it has not changed since; best effort."""
    if len(papers) < MIN_PAPERS or file_stamp(path) != stamp:
        return
    try:
        with open(path, "rb") as handle:
            bom = len(_UTF8_BOM) if handle.read(len(_UTF8_BOM)) == _UTF8_BOM else 0
    except OSError:
        return
    if bom + layout.end != stamp[1]:  # a "\r\n" read as "\n", or not UTF-8: the text's places are not the bytes'
        return
    try:
        crc = layout.crc if layout.crc is not None else file_crc(path)  # (the bytes read, when they were summed)
    except OSError:
        return
    try:  # the ids as bytes, a few thousand at a time: at 100,000 papers their text would be 1.2 MB more at once
        ids = [bytes.fromhex("".join([paper.id for paper in papers.papers[n : n + _BATCH]]))
               for n in range(0, len(papers), _BATCH)]  # fmt: skip
    except ValueError:
        return
    count, numbers = len(papers), layout.numbers
    if len(layout.starts) == layout.header + count:  # no duplicates: every paragraph after the header is a paper
        starts, sizes = memoryview(layout.starts)[layout.header :], memoryview(layout.sizes)[layout.header :]
    else:
        first = layout.header - 1  # paper numbers count from 1, the header aside
        starts = array(_NUMBERS, [layout.starts[first + n] for n in numbers])
        sizes = array(_NUMBERS, [layout.sizes[first + n] for n in numbers])
    if papers.has_titles:
        cuts = array(_NUMBERS, [len(paper.given_title or "") for paper in papers.papers])
    else:
        cuts = array(_NUMBERS, [0]) * count
    body = [*ids, *(memoryview(column).cast("B") for column in (array(_NUMBERS, numbers), cuts, starts, sizes))]
    header = {"key": key(path, stamp, fmt), "sum": checksum(*body), "crc": crc, "papers": len(papers), "bom": bom,
              "name": papers.name, "duplicates": papers.duplicates, "has_titles": papers.has_titles}  # fmt: skip
    directory = directory or cache_dir("papers")
    try:
        write_atomic(directory / f"{header['key']}.text", [json.dumps(header).encode(), b"\n", *body])
        prune(directory, "*.text", KEEP)
    except OSError:
        pass  # a read-only or full cache directory only costs the next run the time to read the file whole


def load(
    path: Path, stamp: tuple[int, int], fmt: str | None, directory: Path | None = None
) -> tuple[PaperList, Sequence[int]] | None:
    """The papers of the file at `path`, which has the stamp `stamp`, and their paragraph numbers, from what
    was saved of it; None when nothing was, it is damaged, or the file changed while it was read."""
    found_key = key(path, stamp, fmt)
    try:
        with open((directory or cache_dir("papers")) / f"{found_key}.text", "rb") as handle:
            header = json.loads(handle.readline())
            body = handle.read()
        if header.get("key") != found_key or header.get("sum") != checksum(body):
            return None
        if header.get("crc") != file_crc(path):  # the same size and time, other bytes
            return None
        ids, numbers, cuts, starts, sizes = _columns(header["papers"], body)
        del body
        found = PaperList(path=str(path), name=header["name"], papers=(), duplicates=header["duplicates"],
                          has_titles=header["has_titles"])  # fmt: skip
        papers = parse_again(_blocks(path, starts, sizes, header["bom"]), ids, cuts, found)
    except Exception:  # anything wrong with a cache file only means reading the paper file whole
        return None
    return (papers, numbers) if file_stamp(path) == stamp else None


def _columns(count: int, body: bytes) -> tuple[list[str], array, array, array, array]:
    """The ids, numbers, title lengths, starts and sizes of `count` papers saved in `body`."""
    width = array(_NUMBERS).itemsize * count
    if len(body) != _ID_BYTES * count + 4 * width:
        raise ValueError("a cache file of another shape")
    hexed = body[: _ID_BYTES * count].hex()
    ids = [hexed[n : n + 2 * _ID_BYTES] for n in range(0, len(hexed), 2 * _ID_BYTES)]
    columns = []
    for n in range(4):
        column = array(_NUMBERS)
        column.frombytes(body[_ID_BYTES * count + n * width : _ID_BYTES * count + (n + 1) * width])
        columns.append(column)
    return ids, *columns


_CHUNK = 1 << 20  # bytes read from the file at a time


def file_crc(path: Path) -> int:
    """The CRC-32 of the file's bytes, read a megabyte at a time."""
    crc = 0
    with open(path, "rb", buffering=0) as handle:
        while chunk := handle.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
    return crc


def _blocks(path: Path, starts: Sequence[int], sizes: Sequence[int], bom: int) -> Iterator[str]:
    """Each paper's block, read from the file where it starts and as long as it is (after a byte-order mark of
    `bom` bytes), into one buffer used again and again (a new megabyte made for each read cost the app a fault per
    page while it holds large blocks in mappings of their own, 0.15 s of system CPU at 100k papers)."""
    with open(path, "rb", buffering=0) as handle:
        handle.seek(bom)
        buffer = bytearray(2 * _CHUNK)
        view = memoryview(buffer)
        filled, base = 0, 0  # what the buffer holds: `filled` bytes from `base` bytes into the text
        for start, size in zip(starts, sizes, strict=True):
            at, end = start - base, start - base + size
            if end > filled:  # read on from where the file was read to, or from the block's start
                if at > filled:
                    handle.seek(bom + start)
                    at = filled
                kept = filled - at  # the start of the block, already read
                if kept + max(_CHUNK, size) > len(buffer):  # a block longer than the buffer holds
                    view.release()
                    buffer.extend(bytes(kept + max(_CHUNK, size) - len(buffer)))
                    view = memoryview(buffer)
                view[:kept] = view[at:filled]
                filled = kept + (handle.readinto(view[kept : kept + max(_CHUNK, size)]) or 0)
                base, at, end = start, 0, size
                if end > filled:
                    raise ValueError("the file is shorter than it was")
            block = str(view[at:end], "utf-8")  # decoded in place: no copy of the bytes between a paper's texts
            yield block.replace("\r", "\n") if "\r" in block else block  # a "\r" alone ends a line too
        view.release()
