"""The paper model: one frozen record per paper read from the paper file, with what its source says of it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Generic, TypeVar, overload

from ..text.normalize import find_urls, to_plain
from .held_titles import title_of


@dataclass(frozen=True, slots=True)
class Record:
    """What a source says of a paper besides its abstract and title (BibTeX, a feed, a CSV row, sidecars).

    Kept apart from `Paper`, which holds one reference to it or None: a plain abstract list pays one
    field per paper, not ten. A field the source does not give stays empty; nothing is guessed.
    """

    authors: tuple[str, ...] = ()  # display order: "Jane Doe"
    year: int | None = None
    venue: str | None = None
    arxiv_id: str | None = None  # without a version: "2210.12590"
    doi: str | None = None  # without a resolver: "10.1145/3292500.3330701"
    url: str | None = None  # the paper's landing page
    pdf_url: str | None = None
    categories: tuple[str, ...] = ()  # arXiv's, the primary one first
    keywords: tuple[str, ...] = ()
    # Filled by an online lookup (`readlist resolve`), never by a reader: the verified title it found and
    # the source(s) its fields came from ("arxiv", "arxiv+dblp"). The file's own title outranks found_title.
    found_title: str | None = None
    found_by: str | None = None

    def __bool__(self) -> bool:
        return any(getattr(self, name) for name in self.__slots__)


NO_RECORD = Record()
T = TypeVar("T")


class _FromRecord(Generic[T]):
    """A field of a paper's record, read as `paper.authors`: its empty value when the paper has no record."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, paper: None, owner: type) -> _FromRecord[T]: ...
    @overload
    def __get__(self, paper: Paper, owner: type) -> T: ...
    def __get__(self, paper, owner):
        if paper is None:
            return self
        record = paper.record
        return getattr(record if record is not None else NO_RECORD, self.name)


@dataclass(frozen=True, eq=False)
class Paper:
    """A paper as read from the file.

    `plain` and `title` are computed on first use and cached: loading 100k papers
    stays fast, and only what is shown or searched pays for LaTeX conversion.
    `given_title` is the source's title (a title line, a sidecar, a BibTeX field); without it the
    title is derived from the abstract. `text` is the abstract, empty for a record that has none.
    """

    id: str
    index: int
    text: str
    given_title: str | None = None
    record: Record | None = None

    # The record's fields, read through the paper (empty when it has no record): not dataclass fields.
    authors = _FromRecord[tuple[str, ...]]()
    year = _FromRecord[int | None]()
    venue = _FromRecord[str | None]()
    arxiv_id = _FromRecord[str | None]()
    doi = _FromRecord[str | None]()
    url = _FromRecord[str | None]()
    pdf_url = _FromRecord[str | None]()
    categories = _FromRecord[tuple[str, ...]]()
    keywords = _FromRecord[tuple[str, ...]]()
    found_title = _FromRecord[str | None]()
    found_by = _FromRecord[str | None]()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Paper) and (self.id, self.index, self.text) == (other.id, other.index, other.text)

    def __hash__(self) -> int:
        return hash((self.id, self.index))

    @cached_property
    def plain(self) -> str:
        """The abstract in display/search form (LaTeX as Unicode, no Markdown markers)."""
        return to_plain(self.text)

    @property
    def known_title(self) -> str | None:
        """The paper's real title when one is known (the file's, else one found online); None when only derived."""
        record = self.record  # read directly: search asks this of every paper it scores
        return self.given_title or (record.found_title if record is not None else None)

    @property
    def title_origin(self) -> str:
        """Where `title` comes from: "given" (the source's), "found" (an online lookup) or "derived" (the abstract)."""
        if self.given_title:
            return "given"
        return "found" if self.found_title else "derived"

    @cached_property
    def title(self) -> str:
        if self.given_title:
            return to_plain(self.given_title)
        if self.found_title:
            return self.found_title
        held = title_of(self)  # read from the title cache with its list's
        if held is not None:
            return held
        from ..titles.derive import derive_title

        # The plain text is kept only if something else asked for it: deriving every title (for title:
        # search) must not keep every abstract twice in memory.
        return derive_title(self.__dict__.get("plain") or to_plain(self.text))

    @cached_property
    def urls(self) -> tuple[str, ...]:
        return find_urls(self.text)

    def record_fields(self) -> dict:
        """The source's fields this paper has, by name (its title given, authors, year, ...): none is empty."""
        fields = {"given_title": self.given_title} if self.given_title else {}
        if self.record:
            for name in Record.__slots__:
                value = getattr(self.record, name)
                if value:
                    fields[name] = list(value) if isinstance(value, tuple) else value
        return fields

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "index": self.index,
            "title": self.title,
            "text": self.text,
            "plain": self.plain,
            "urls": list(self.urls),
            **self.record_fields(),
        }


@dataclass(frozen=True)
class PaperList:
    """Everything read from one paper file."""

    path: str
    name: str
    papers: tuple[Paper, ...]
    duplicates: int = 0
    has_titles: bool = False
    stamp: tuple[int, int] | None = None  # the file's `file_stamp` when read; None for text not read from a file
    format: str = "text"  # the reader's name (formats.FORMATS)
    notices: tuple[str, ...] = ()  # what the reader left out or could not use, one line each, naming the file

    def __len__(self) -> int:
        return len(self.papers)

    @cached_property
    def by_id(self) -> dict[str, Paper]:
        return {paper.id: paper for paper in self.papers}
