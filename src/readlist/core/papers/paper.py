"""The paper model: one frozen record per abstract in the paper file."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..text.normalize import find_urls, to_plain


@dataclass(frozen=True, eq=False)
class Paper:
    """A paper as read from the file.

    `plain` and `title` are computed on first use and cached: loading 100k papers
    stays fast, and only what is shown or searched pays for LaTeX conversion.
    """

    id: str
    index: int
    text: str
    file_title: str | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Paper) and (self.id, self.index, self.text) == (other.id, other.index, other.text)

    def __hash__(self) -> int:
        return hash((self.id, self.index))

    @cached_property
    def plain(self) -> str:
        """The abstract in display/search form (LaTeX as Unicode, no Markdown markers)."""
        return to_plain(self.text)

    @cached_property
    def title(self) -> str:
        if self.file_title:
            return to_plain(self.file_title)
        from ..titles.derive import derive_title

        # The plain text is kept only if something else asked for it: deriving every title (for title:
        # search) must not keep every abstract twice in memory.
        return derive_title(self.__dict__.get("plain") or to_plain(self.text))

    @cached_property
    def urls(self) -> tuple[str, ...]:
        return find_urls(self.text)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "index": self.index,
            "title": self.title,
            "text": self.text,
            "plain": self.plain,
            "urls": list(self.urls),
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

    def __len__(self) -> int:
        return len(self.papers)

    @cached_property
    def by_id(self) -> dict[str, Paper]:
        return {paper.id: paper for paper in self.papers}
