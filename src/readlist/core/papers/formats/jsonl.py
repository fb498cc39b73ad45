"""The arXiv metadata snapshot's JSON Lines (.jsonl, or a .json holding one object a line): one paper a line.

Fields used: `id`, `title`, `authors_parsed` (else `authors`), `abstract`, `categories`, `doi`, `journal-ref`
(the venue) and the year of the first version (`versions[0].created`, else `update_date`, the last one's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from ..identifiers import arxiv_category, arxiv_id, doi
from ..paper import PaperList, Record
from ..records import Collector, json_value, names, one_line, split_authors, year_of
from ..source import ReadError

NAME = "jsonl"
_YEAR = re.compile(r" (\d{4}) ")


def looks_like_lines(text: str) -> bool:
    """Whether `text` opens with a whole JSON object on its first line (readlist's export opens with `{` alone
    and spreads over lines; one written compact is one object holding "papers")."""
    first = text.lstrip(" \t\r\n\ufeff").split("\n", 1)[0].strip()
    if not first.startswith("{") or not first.endswith("}"):
        return False
    try:
        found = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(found, dict) and "papers" not in found


def parse(text: str, source: str) -> PaperList:
    papers = Collector(source)
    for n, line in enumerate(_lines(text.removeprefix("\ufeff")), 1):
        if not line.strip():
            continue
        try:
            row = json_value(line)
        except (ValueError, RecursionError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deep"
            raise ReadError(f"{source}: line {n}: not a JSON object ({reason})") from None
        if not isinstance(row, dict):
            raise ReadError(f"{source}: line {n}: not a JSON object (one paper a line)")
        where = f"line {n}"
        papers.add(where, _string(row, "abstract", source, where), _string(row, "title", source, where), _record(row))
    if not papers.papers and not papers.left_out:
        raise ReadError(f"{source}: the file has no lines of JSON")
    return papers.paper_list(NAME)


def _lines(text: str) -> Iterator[str]:
    """The text's lines as split("\n") gives them, one at a time: a list of them all is the file's size again."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def _string(row: dict, key: str, source: str, where: str) -> str:
    value = row.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ReadError(f"{source}: {where}: {key!r} is not a string")
    return value


def _record(row: dict) -> Record:
    given_id = row.get("id")
    categories = row.get("categories")
    return Record(
        authors=_authors(row),
        year=_year(row),
        venue=one_line(row.get("journal-ref")),
        arxiv_id=arxiv_id(given_id) if isinstance(given_id, str) else None,
        doi=doi(row["doi"].split()[0]) if isinstance(row.get("doi"), str) and row["doi"].strip() else None,
        categories=names(map(arxiv_category, categories.split())) if isinstance(categories, str) else (),
    )


def _authors(row: dict) -> tuple[str, ...]:
    parsed = row.get("authors_parsed")
    if isinstance(parsed, list) and parsed:  # [["Doe", "Jane", ""], ...]: family, given, suffix
        return names(_display_order(parts) for parts in parsed if isinstance(parts, list))
    authors = row.get("authors")
    return split_authors(" ".join(authors.split())) if isinstance(authors, str) else ()


def _display_order(parts: list) -> str:
    family, given, suffix = (*parts[:3], "", "", "")[:3]
    return " ".join(part for part in (given, family, suffix) if isinstance(part, str) and part)


def _year(row: dict) -> int | None:
    versions = row.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        created = versions[0].get("created")  # "Mon, 2 Apr 2007 19:18:42 GMT"
        found = _YEAR.search(created) if isinstance(created, str) else None
        if found:
            return int(found.group(1))
    return year_of(row.get("update_date"))
