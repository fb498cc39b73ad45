"""The searchable part of the user's annotations: notes, tags, their own titles, stars and reading status."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from ..text.tokens import fold, phrase_pattern, split_words, stem
from .matching import WordMatcher


@dataclass(frozen=True)
class Annotated:
    """The searchable part of one paper's annotation."""

    starred: bool
    status: str
    note_words: tuple[str, ...]
    tags: tuple[str, ...]
    title_words: tuple[str, ...] = ()  # the user's own title for the paper, when they gave one

    @classmethod
    def of(cls, annotation: Any) -> Annotated:
        """The searchable part of an annotation (an `Annotation`, or any object with its fields)."""
        note = getattr(annotation, "note", "") or ""
        starred = bool(getattr(annotation, "starred", False))
        status = str(getattr(annotation, "status", "unread") or "unread")
        raw_tags = getattr(annotation, "tags", ()) or ()
        if not note and not raw_tags and not getattr(annotation, "title", None):
            # Most annotations of a big list are a mark alone (a whole list marked read): one shared object for
            # each, not 100,000 folds of nothing (a third of a second a search at 100k annotations).
            return _marks_only(starred, status)
        tags = tuple(fold(str(tag)) for tag in raw_tags)
        return cls(
            starred=starred,
            status=status,
            note_words=tuple(split_words(fold(note))),
            tags=tags,
            title_words=tuple(split_words(fold(getattr(annotation, "title", None) or ""))),
        )

    @cached_property
    def words(self) -> tuple[str, ...]:
        return self.note_words + self.title_words + tuple(word for tag in self.tags for word in split_words(tag))


@cache
def _marks_only(starred: bool, status: str) -> Annotated:
    return Annotated(starred=starred, status=status, note_words=(), tags=())


def note_hits(
    annotated: Mapping[int, Annotated], matcher: WordMatcher, tags_too: bool = True, title_only: bool = False
) -> dict[int, float]:
    """Papers whose note, tags and own title hold the word (only the note without `tags_too`, only the
    title with `title_only`), with the best match's weight."""
    hits = {}
    for pos, ann in annotated.items():
        words = ann.title_words if title_only else ann.words if tags_too else ann.note_words
        if not words:  # a mark alone: most of a big list's annotations
            continue
        weight = max(matcher.weight(stem(word)) for word in words)
        if weight:
            hits[pos] = weight
    return hits


def note_phrase(
    annotated: Mapping[int, Annotated], words: tuple[str, ...], note: bool = True, title: bool = True
) -> set[int]:
    """Papers whose note, or own title, holds these words in a row."""
    pattern = phrase_pattern(words)
    out = set()
    for pos, ann in annotated.items():
        if not ann.note_words and not ann.title_words:
            continue
        if (note and pattern.search(" ".join(ann.note_words))) or (title and pattern.search(" ".join(ann.title_words))):
            out.add(pos)
    return out


def flag_docs(annotated: Mapping[int, Annotated], flag: str, everything: Iterable[int]) -> set[int]:
    """Papers with an is: flag (starred, noted, unread, reading, read)."""
    items = annotated.items()
    if flag == "starred":
        return {pos for pos, ann in items if ann.starred}
    if flag == "noted":
        return {pos for pos, ann in items if ann.note_words}
    if flag == "unread":
        return set(everything) - {pos for pos, ann in items if ann.status in ("reading", "read")}
    return {pos for pos, ann in items if ann.status == flag}
