"""The plain-text paper file (paragraphs of abstracts, read by reader.py) and the sidecar files beside it.

`NAME.titles.tsv` gives titles and `NAME.ids.tsv` identifiers, one paper a line: the paper's number in the
file (from 1, the header aside, duplicates counted) or its id, a tab, the value. An identifier that is an
arXiv id fills the paper's arXiv id, one that is a DOI its DOI, and a third column holding an arXiv category
(`cs.AI`, or `cs-AI` as folder names write it) its category. titles.tsv may also name papers by the arXiv
ids or DOIs that ids.tsv gives them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from ..identifiers import arxiv_category, arxiv_id, doi
from ..paper import Paper, PaperList, Record
from ..reader import parse_laid_out, parse_numbered
from ..records import one_line, shown
from ..source import ReadError, Stamp, read_text

NAME = "text"
SIDECARS = ("ids", "titles")  # in this order: titles may name papers by the ids the first gives


def parse(text: str, source: str = "<text>") -> PaperList:
    """Decoded text alone, without sidecars."""
    return parse_numbered(text, source)[0]


def read(
    path: Path, text: str | Iterable[str], encoding: str | None, stamp: Stamp = None, fmt: str | None = None
) -> PaperList:
    """The papers of a text file read as `text` (in pieces, when read with the `file_stamp` `stamp`), with what
    its sidecar files say of them. A file read as UTF-8 with a stamp leaves its layout in the cache, for reading
    it again in the format `fmt` asked for (None: the one its content showed)."""
    split = None
    if stamp is not None and not encoding:  # a large UTF-8 file: read by two processes at once (on Linux)
        from .. import split_read

        split = split_read.read(path)
    papers, layout = split or parse_laid_out(text, str(path))
    if stamp is not None and not encoding:
        from .. import text_cache

        text_cache.save(path, stamp, fmt, papers, layout)
    return _with_sidecars(path, papers, layout.numbers, encoding)


def read_again(path: Path, stamp: tuple[int, int], fmt: str | None) -> PaperList | None:
    """The papers of a UTF-8 text file read before with the `file_stamp` `stamp` in the format `fmt`, from its
    layout in the cache and its sidecars; None when the cache has none."""
    from .. import text_cache

    found = text_cache.load(path, stamp, fmt)
    return _with_sidecars(path, *found, None) if found is not None else None


def _with_sidecars(path: Path, papers: PaperList, numbers: Sequence[int], encoding: str | None) -> PaperList:
    """`papers` read from `path`, with what its sidecar files say of them."""
    if not path.name:
        return papers
    found = [path.with_name(f"{path.stem}.{kind}.tsv") for kind in SIDECARS]
    if not any(sidecar.is_file() for sidecar in found):
        return papers
    fields = _Fields(papers.papers, numbers)
    for kind, sidecar in zip(SIDECARS, found, strict=True):
        if sidecar.is_file():
            fields.read(kind, sidecar, read_text(sidecar, encoding)[0])
    return replace(
        papers,
        papers=fields.papers(),
        has_titles=papers.has_titles or bool(fields.titles),
        notices=tuple(fields.notices),
    )


@dataclass
class _Fields:
    """What the sidecars say, by position in the list."""

    given: tuple[Paper, ...]
    numbers: Sequence[int]
    titles: dict[int, str] = field(default_factory=dict)
    arxiv: dict[int, str] = field(default_factory=dict)
    dois: dict[int, str] = field(default_factory=dict)
    categories: dict[int, str] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_number = {number: n for n, number in enumerate(self.numbers)}
        self.by_id = {paper.id: n for n, paper in enumerate(self.given)}
        self.last_number = self.numbers[-1] if self.numbers else 0

    def read(self, kind: str, path: Path, text: str) -> None:
        unknown, not_ids = [], 0
        for n, line in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
            if not line.strip():
                continue
            key, tab, rest = line.partition("\t")
            value, _, extra = rest.partition("\t")
            value = one_line(value)
            if not tab or not value or not key.strip():
                raise ReadError(f"{path}: line {n}: expected a paper's number or id, a tab, then its {kind[:-1]}")
            position = self._position(path, n, key.strip())
            if position is None:
                unknown.append(key.strip())
            elif kind == "titles":
                self.titles[position] = value
            elif not self._identify(position, value, extra):
                not_ids += 1
        if unknown:
            keys = ", ".join(map(shown, unknown[:3])) + (", …" if len(unknown) > 3 else "")
            self.notices.append(f"{path}: {len(unknown)} line(s) name no paper of the list ({keys})")
        if not_ids:
            self.notices.append(f"{path}: {not_ids} identifier(s) are neither an arXiv id nor a DOI; left out")

    def _position(self, path: Path, n: int, key: str) -> int | None:
        if key.isdecimal():
            number = int(key) if len(key) < 10 else 0
            if not 1 <= number <= self.last_number:
                number = key if len(key) <= 12 else key[:11] + "…"
                raise ReadError(f"{path}: line {n}: no paper number {number} (the list has {self.last_number})")
            return self.by_number.get(number)  # None: a duplicate paragraph, read once under its first number
        position = self.by_id.get(key.lower())
        if position is None:
            position = self.by_identifier.get(arxiv_id(key) or (doi(key) or "").lower())
        return position

    @cached_property
    def by_identifier(self) -> dict[str, int]:
        """Positions by the arXiv ids and (lowercase) DOIs ids.tsv gave, asked for once it has been read."""
        return {**{value: n for n, value in self.arxiv.items()}, **{value.lower(): n for n, value in self.dois.items()}}

    def _identify(self, position: int, value: str, extra: str) -> bool:
        category = arxiv_category(extra.split("\t", 1)[0]) if extra.strip() else None
        if category:
            self.categories[position] = category
        if found := arxiv_id(value):
            self.arxiv[position] = found
        elif found := doi(value):
            self.dois[position] = found
        return bool(found)

    def papers(self) -> tuple[Paper, ...]:
        out = []
        for n, paper in enumerate(self.given):
            record = Record(
                arxiv_id=self.arxiv.get(n),
                doi=self.dois.get(n),
                categories=(self.categories[n],) if n in self.categories else (),
            )
            title = self.titles.get(n, paper.given_title)
            out.append(Paper(id=paper.id, index=paper.index, text=paper.text, given_title=title, record=record or None))
        return tuple(out)
