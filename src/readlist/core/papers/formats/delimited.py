"""CSV and TSV files with a header row: one paper a row, columns named (in any case) title, abstract, authors,
year, venue, doi, arxiv, url, pdf, categories, keywords. Other columns are left out, and named once in a notice.

Authors in one cell are separated by ';' (each 'Family, Given' or 'Given Family'), or by commas and 'and';
categories and keywords by ';' or ','.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator

from ..identifiers import arxiv_category, arxiv_id, doi
from ..paper import PaperList, Record
from ..records import Collector, names, one_line, shown, split_authors, year_of
from ..source import ReadError

CSV = "csv"
TSV = "tsv"
COLUMNS = ("title", "abstract", "authors", "year", "venue", "doi", "arxiv", "url", "pdf", "categories", "keywords")
_LIST_SPLIT = re.compile(r"[;,]")


def parse_csv(text: str, source: str) -> PaperList:
    return parse(text, source, CSV)


def parse_tsv(text: str, source: str) -> PaperList:
    return parse(text, source, TSV)


def parse(text: str, source: str, fmt: str) -> PaperList:
    text = text.removeprefix("\ufeff")
    try:
        return _parse(text, source, fmt, strict=True)
    except _Lenient:
        # A stray quote inside a cell ('5" display') is read as written, as spreadsheets do; only a quoted cell
        # left open to the end of the file is an error, since it swallows every row after it.
        return _parse(text, source, fmt, strict=False)


class _Lenient(Exception):
    """The strict reading met a quote out of place that a lenient reading takes as written."""


def _parse(text: str, source: str, fmt: str, strict: bool) -> PaperList:
    delimiter = "\t" if fmt == TSV else ","
    rows = csv.reader(_lines(text), delimiter=delimiter, strict=strict)
    row_start = 1  # the line the row being read starts on
    try:
        header = next(rows, None)
        while header is not None and not any(cell.strip() for cell in header):
            header = next(rows, None)  # blank lines before the header
        if header is None:
            raise ReadError(f"{source}: no header row")
        columns = {}
        for n, cell in enumerate(header):
            columns.setdefault(cell.strip().lower(), n)
        if "title" not in columns and "abstract" not in columns:
            cells = ", ".join(shown(cell) for cell in header[:8]) + (", …" if len(header) > 8 else "")
            raise ReadError(f"{source}: line {rows.line_num}: the header row names no title or abstract column "
                            f"(it has {cells})")  # fmt: skip
        papers = Collector(source)
        row_start = rows.line_num + 1
        for row in rows:
            if any(cell.strip() for cell in row):
                cells = {name: row[n] for name, n in columns.items() if n < len(row) and name in COLUMNS}
                title, abstract = cells.get("title"), cells.get("abstract", "")
                papers.add(f"line {rows.line_num}", abstract, title, _record(cells))
            row_start = rows.line_num + 1
    except csv.Error as exc:
        if str(exc) == "unexpected end of data":
            raise ReadError(
                f'{source}: line {row_start}: a quoted cell opened on this line is never closed (a " missing?), '
                "so every row after it would be read into it"
            ) from None
        if strict:
            raise _Lenient from None
        raise ReadError(f"{source}: line {rows.line_num}: {exc}") from None
    unknown = [cell.strip() for cell in header if cell.strip() and cell.strip().lower() not in COLUMNS]
    notices = [f"{source}: columns left out: {', '.join(map(shown, unknown))}"] if unknown else []
    if not papers.papers and not papers.left_out:
        raise ReadError(f"{source}: no rows under the header row")
    return papers.paper_list(fmt, notices=notices)


def _lines(text: str) -> Iterator[str]:
    """The lines of `text` with their endings, as a file opened with newline="" gives them (a cell may hold
    line breaks), without a copy of the text up to four times its size (as io.StringIO keeps)."""
    start, size = 0, len(text)
    ending = "\n" if "\n" in text or "\r" not in text else "\r"  # old Mac files end lines in CR alone
    while start < size:
        end = text.find(ending, start)
        end = size if end < 0 else end + 1
        yield text[start:end]
        start = end


def _record(cells: dict[str, str]) -> Record:
    return Record(
        authors=split_authors(cells.get("authors", "")),
        year=year_of(cells.get("year")),
        venue=one_line(cells.get("venue")),
        arxiv_id=arxiv_id(cells.get("arxiv", "")),
        doi=doi(cells.get("doi", "")),
        url=one_line(cells.get("url")),
        pdf_url=one_line(cells.get("pdf")),
        categories=names(map(arxiv_category, _LIST_SPLIT.split(cells.get("categories", "")))),
        keywords=names(_LIST_SPLIT.split(cells.get("keywords", ""))),
    )
