"""Building a paper list from a source's records: ids, fields cleaned, duplicates dropped and counted.

Every reader but the plain-text one hands its records to a `Collector`, so all formats follow the same rules:
an abstract is joined as a text file's paragraph would be, absent fields stay absent, and a record with
neither an abstract nor a title is left out and said so.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable

import orjson

from ..text.normalize import normalize_ws, quoted, strip_control, to_plain
from .identifiers import record_id
from .paper import Paper, PaperList, Record
from .reader import join_lines
from .source import ReadError

_YEAR = re.compile(r"\s*(\d{4})(?!\d)")
SHOWN_PLACES = 3  # records named in a notice; the rest are counted


def abstract_text(value: str | None) -> str:
    """An abstract as one line, its lines joined as a paper file's paragraph would be (so it gets the same id)."""
    if not value:
        return ""
    if "\n" not in value and "\r" not in value:
        return value.strip()  # one line already (the common case, found at C speed)
    if value.isascii():
        return " ".join(value.split())  # what joining its lines gives, as far as the id and the display go
    lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return join_lines([line.strip() for line in lines if line.strip()])


def json_value(text: str):
    """The JSON value `text` holds, read by orjson (two to three times as fast); what orjson refuses (NaN, a
    number past 64 bits, half a character, nesting past 1024 levels, bad JSON) is read by the standard library,
    so it reads the same and fails with the same message."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        value = json.loads(text)
    return _whole_characters(value) if _SURROGATE_ESCAPE.search(text) else value


# A JSON escape of half a character ("\udfff" alone): the standard library reads it as a lone surrogate, which no
# text can be written in (hashing the abstract for its id would fail). It is read as U+FFFD, the replacement
# character, as a decoder does with a broken byte.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _whole_characters(value):
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_whole_characters(item) for item in value]
    if isinstance(value, dict):
        return {_whole_characters(key): _whole_characters(item) for key, item in value.items()}
    return value


def one_line(value: object) -> str | None:
    """A short field (title, venue, a name) as one line without control characters; None when empty."""
    if value.__class__ is not str or not value:
        return None
    if value.isprintable() and value[0] != " " and value[-1] != " " and "  " not in value:
        return value if value.isascii() else normalize_ws(value)  # no control character, no run of spaces
    return normalize_ws(strip_control(value)) or None


def shown(value: str, limit: int = 60) -> str:
    """A value quoted in a message, on one line and cut short."""
    line = " ".join(strip_control(value).split())
    return quoted(line if len(line) <= limit else line[: limit - 1] + "…")


def names(values: Iterable[object]) -> tuple[str, ...]:
    """Names or keywords as a tuple of one-line strings, the empty ones and repeats left out."""
    found = [*map(one_line, values)]
    if None in found:
        found = [name for name in found if name]
    return tuple(dict.fromkeys(found)) if len(found) > 1 else tuple(found)


def year_of(value: object) -> int | None:
    """The year a field starts with ("2023", "2023-05-01", "2023a"); None when it starts with none."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 < value < 10000 else None
    match = _YEAR.match(value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def split_authors(value: str) -> tuple[str, ...]:
    """An authors cell: names separated by ';' or by 'and' as BibTeX writes them (each 'Family, Given' or
    'Given Family'), else by commas and 'and' as arXiv writes them ('A. Doe, B. Roe and C. Poe'); one name
    'Family, Given' alone is one name."""
    if ";" in value:
        return names(turned(name) for name in value.split(";"))
    parts = _AND.split(value)
    if all(part.count(",") == 1 for part in parts) and (len(parts) > 1 or len(parts[0].split(",")[0].split()) == 1):
        return names(map(turned, parts))
    return names(re.split(r",\s*(?:and\s+)?|\s+and\s+", value))


_AND = re.compile(r"\s+and\s+")


def turned(name: str) -> str:
    """'Doe, Jane' as 'Jane Doe'; a name without a comma as it is."""
    family, comma, given = name.partition(",")
    return f"{given.strip()} {family.strip()}" if comma and given.strip() else name.strip(" ,")


class Collector:
    """The papers of one source, in order, each id once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.papers: list[Paper] = []
        self.seen: set[str] = set()
        self.duplicates = 0
        self.left_out: list[str] = []  # where records without an abstract or title are

    def add(self, where: str, abstract: str, title: str | None, record: Record | None = None, pid: str | None = None):
        """One record found at `where` ("line 12", "entry 'doe2023'"); `pid` keeps an id the source gives."""
        text = abstract_text(abstract)
        title = one_line(title)
        if record is not None and not record:
            record = None  # an empty record is no record
        if pid is None:
            pid = record_id(text, record.doi, record.arxiv_id, title) if record else record_id(text, title=title)
        if pid is None or not (text or title):
            self.left_out.append(where)
            return
        if pid in self.seen:
            self.duplicates += 1
            return
        self.seen.add(pid)
        self.papers.append(Paper(id=pid, index=len(self.papers) + 1, text=text, given_title=title, record=record))

    def paper_list(self, fmt: str, name: str | None = None, notices: Iterable[str] = ()) -> PaperList:
        """The list, named `name` (else after the file). Raises ReadError when no record made a paper."""
        notices = list(notices)
        if self.left_out:
            places = ", ".join(self.left_out[:SHOWN_PLACES]) + (", …" if len(self.left_out) > SHOWN_PLACES else "")
            notices.append(f"{self.source}: left out {len(self.left_out)} record(s) with neither an abstract "
                           f"nor a title ({places})")  # fmt: skip
        if not self.papers:
            more = f"; {notices[-1].removeprefix(self.source + ': ')}" if self.left_out else ""
            raise ReadError(f"{self.source}: no papers in this {fmt} file{more}")
        return PaperList(
            path=self.source,
            name=one_line(to_plain(name) if name else None) or os.path.basename(self.source),  # LaTeX as text
            papers=tuple(self.papers),
            duplicates=self.duplicates,
            has_titles=any(paper.given_title for paper in self.papers),
            format=fmt,
            notices=tuple(notices),
        )
