"""Paper lists read from BibTeX, feeds, CSV and JSON files, saved in the user cache directory keyed by the file.

Parsing these costs several times what a text file does (bibtexparser alone takes about 2.3 s for 10,000
entries), and every command reads the paper file again; read back from here, without reading the file, a list
loads about as fast as a text file. Its rows are written and read by orjson (four times as fast as the standard
library, and read from the file's bytes without a decoded copy of them). The key covers the file's path, size
and modification time (in nanoseconds: a save changes them), the format and encoding asked for and the readers'
code, so a change to any of them reads the file again. A damaged cache file (its checksum differs) is ignored
and replaced.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from functools import cache
from pathlib import Path

import orjson

from ..files.cache import cache_dir, prune, write_atomic
from .paper import Paper, PaperList, Record

FORMAT = 2
KEEP = 4  # cached lists kept; the least recently written go first
MIN_PAPERS = 1000  # a smaller list reads as fast as it loads from here
_READERS = ("papers/*.py", "papers/formats/*.py", "text/normalize.py")  # relative to core/
_FIELDS = Record.__slots__
_TUPLES = tuple(n for n, name in enumerate(_FIELDS) if name in ("authors", "categories", "keywords"))  # JSON: lists


@cache
def readers_digest() -> str:
    """A digest of the readers' code and of the BibTeX parser's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        digest = hashlib.blake2b(version("bibtexparser").encode(), digest_size=8)
    except PackageNotFoundError:
        digest = hashlib.blake2b(digest_size=8)
    digest.update(code_digest().encode())
    return digest.hexdigest()


@cache
def code_digest() -> str:
    """A digest of the readers' code (the text reader's, among others)."""
    here = Path(__file__).parents[1]  # core/
    digest = hashlib.blake2b(digest_size=8)
    for pattern in _READERS:
        for module in sorted(here.glob(pattern)):
            digest.update(module.relative_to(here).as_posix().encode() + b"\0" + module.read_bytes())
    return digest.hexdigest()


def key(path: Path, stamp: tuple[int, int], fmt: str | None, encoding: str | None) -> str:
    """The cache file's name for the file at `path` with the `file_stamp` `stamp`, read in `fmt` (None: the one
    chosen by its extension or content) and `encoding`."""
    what = [FORMAT, readers_digest(), str(path), os.path.abspath(path), *stamp, fmt, encoding]
    return hashlib.blake2b(json.dumps(what).encode(), digest_size=16).hexdigest()


def load(found_key: str, directory: Path | None = None) -> PaperList | None:
    """The list cached under `found_key`, or None when there is none or it is damaged."""
    path = (directory or cache_dir("papers")) / f"{found_key}.json"
    try:
        with open(path, "rb") as handle:
            header = json.loads(handle.readline())
            body = handle.read()
        if header.get("key") != found_key or header.get("sum") != checksum(body):
            return None
        rows = _loads(body)
        del body  # 100 MB at 100k papers, not needed while they are made
        return PaperList(
            path=header["path"],
            name=header["name"],
            papers=tuple(_paper(n, row) for n, row in enumerate(rows, 1)),
            duplicates=header["duplicates"],
            has_titles=header["has_titles"],
            format=header["format"],
            notices=tuple(header["notices"]),
        )
    except Exception:  # anything wrong with a cache file only means reading the paper file again
        return None


def save(found_key: str, papers: PaperList, directory: Path | None = None) -> None:
    """Cache `papers` under `found_key`; best effort."""
    directory = directory or cache_dir("papers")
    rows = [_row(paper) for paper in papers.papers]
    try:
        body = orjson.dumps(rows)
    except TypeError:  # half a character (a lone surrogate, from a JSON escape), which orjson refuses
        body = json.dumps(rows, separators=(",", ":")).encode()
    del rows
    header = {"key": found_key, "sum": checksum(body), "path": papers.path, "name": papers.name,
              "duplicates": papers.duplicates, "has_titles": papers.has_titles, "format": papers.format,
              "notices": list(papers.notices)}  # fmt: skip
    try:
        write_atomic(directory / f"{found_key}.json", [json.dumps(header).encode(), b"\n", body])
        prune(directory, "*.json", KEEP)
    except OSError:
        pass  # a read-only or full cache directory only costs the next run the time to parse again


def checksum(*chunks: bytes | memoryview) -> str:
    """A damaged file is all it has to tell apart: CRC-32 does that at a quarter of a cryptographic hash's time."""
    crc = 0
    for chunk in chunks:
        crc = zlib.crc32(chunk, crc)
    return f"crc32:{crc:08x}"


def _loads(body: bytes) -> list:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:  # a lone surrogate, written escaped by the standard library
        return json.loads(body)


def _row(paper: Paper) -> list:
    row: list = [paper.id, paper.text, paper.given_title]
    if paper.record is not None:
        row += [getattr(paper.record, name) for name in _FIELDS]
    return row


def _paper(index: int, row: list) -> Paper:
    record = None
    if len(row) > 3:
        fields = row[3:]
        if len(fields) != len(_FIELDS):
            raise ValueError("a row of another shape")
        for n in _TUPLES:
            fields[n] = tuple(fields[n])
        record = Record(*fields)
    return Paper(id=row[0], index=index, text=row[1], given_title=row[2], record=record)
