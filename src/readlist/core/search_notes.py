"""The searchable part of the user's annotations: notes, tags, stars and reading status."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from .matching import WordMatcher
from .tokens import fold, phrase_pattern, split_words, stem


@dataclass(frozen=True)
class Annotated:
    """The searchable part of one paper's annotation."""

    starred: bool
    status: str
    note_words: tuple[str, ...]
    tags: tuple[str, ...]

    @classmethod
    def of(cls, annotation: Any) -> Annotated:
        """The searchable part of an annotation (an `Annotation`, or any object with its fields); the same
        annotation is folded once, not on every query."""
        try:
            return _annotated(annotation)
        except TypeError:  # not hashable
            return cls._of(annotation)

    @classmethod
    def _of(cls, annotation: Any) -> Annotated:
        note = getattr(annotation, "note", "") or ""
        tags = tuple(fold(str(tag)) for tag in (getattr(annotation, "tags", ()) or ()))
        return cls(
            starred=bool(getattr(annotation, "starred", False)),
            status=str(getattr(annotation, "status", "unread") or "unread"),
            note_words=tuple(split_words(fold(note))),
            tags=tags,
        )

    @cached_property
    def words(self) -> tuple[str, ...]:
        return self.note_words + tuple(word for tag in self.tags for word in split_words(tag))


@lru_cache(maxsize=1 << 16)
def _annotated(annotation: Any) -> Annotated:
    return Annotated._of(annotation)


def note_hits(annotated: Mapping[int, Annotated], matcher: WordMatcher, tags_too: bool = True) -> dict[int, float]:
    """Papers whose note (and tags) hold the word, with the best match's weight."""
    hits = {}
    for pos, ann in annotated.items():
        words = ann.words if tags_too else ann.note_words
        weight = max((matcher.weight(stem(word)) for word in words), default=0.0)
        if weight:
            hits[pos] = weight
    return hits


def note_phrase(annotated: Mapping[int, Annotated], words: tuple[str, ...]) -> set[int]:
    """Papers whose note holds these words in a row."""
    pattern = phrase_pattern(words)
    return {pos for pos, ann in annotated.items() if pattern.search(" ".join(ann.note_words))}


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
