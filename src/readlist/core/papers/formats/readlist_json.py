"""readlist's own JSON export read back: each paper keeps its id, abstract, given title and record fields.

The annotations in an export (status, stars, tags, notes) are not read: they live in the database (see
`readlist merge`). The export's `title` is the title shown, often derived or the user's own, so only
`given_title` gives a paper its title.
"""

from __future__ import annotations

import json
import re

from ..paper import PaperList, Record
from ..records import Collector, json_value, names, one_line, year_of
from ..source import ReadError

NAME = "json"
READS_VERSION = 1  # the newest export version this reader knows: core/export/formats.py's JSON_VERSION
_ID = re.compile(r"[0-9a-f]{12}")
_STRINGS = ("venue", "arxiv_id", "doi", "url", "pdf_url", "found_title", "found_by")
_LISTS = ("authors", "categories", "keywords")


def parse(text: str, source: str) -> PaperList:
    try:
        document = json_value(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as exc:
        raise ReadError(f"{source}: line {exc.lineno}, column {exc.colno}: not JSON ({exc.msg})") from None
    except RecursionError:
        raise ReadError(f"{source}: not readlist's JSON export (nested too deep)") from None
    rows = document.get("papers") if isinstance(document, dict) else None
    if not isinstance(rows, list):
        raise ReadError(f'{source}: not readlist\'s JSON export (no "papers" list)')
    version = document.get("version", READS_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version > READS_VERSION:
        raise ReadError(f"{source}: written by a newer readlist (export version {version!r}); not read")
    papers = Collector(source)
    for n, row in enumerate(rows, 1):
        where = f"paper {n}"
        if not isinstance(row, dict):
            raise ReadError(f"{source}: {where}: not a JSON object")
        check = _Checked(row, f"{source}: {where}")
        pid = check.string("id")
        if pid is not None and not _ID.fullmatch(pid):
            raise ReadError(f"{source}: {where}: 'id' is not a readlist id (12 hex digits)")
        papers.add(where, check.string("text") or "", check.string("given_title"), _record(check), pid)
    if not rows:
        raise ReadError(f"{source}: the export holds no papers")
    return papers.paper_list(NAME)


class _Checked:
    """A row's fields, each of the type the export writes, else a ReadError naming the row and the field."""

    def __init__(self, row: dict, where: str) -> None:
        self.row, self.where = row, where

    def string(self, key: str) -> str | None:
        value = self.row.get(key)
        if value is not None and not isinstance(value, str):
            raise ReadError(f"{self.where}: {key!r} is not a string")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.row.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ReadError(f"{self.where}: {key!r} is not a list of strings")
        return names(value)

    def year(self) -> int | None:
        value = self.row.get("year")
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise ReadError(f"{self.where}: 'year' is not a whole number")
        return year_of(value)


def _record(check: _Checked) -> Record:
    strings = {key: one_line(check.string(key)) for key in _STRINGS}
    lists = {key: check.strings(key) for key in _LISTS}
    return Record(year=check.year(), **strings, **lists)
