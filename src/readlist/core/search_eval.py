"""Running one parsed query against a search index: which papers match, how well, and what to highlight."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import reduce
from typing import TYPE_CHECKING, Any

from .matching import EXACT, FAINT, NEAR_FORM, NEAREST, WordMatcher, matchers
from .query import Query, Term
from .tokens import fold, phrase_pattern, split_words, stem, word_spans

if TYPE_CHECKING:
    from .search import SearchIndex

NOTE_BOOST = 1.0
COMPOUND_POOL = 5000  # papers checked at most for a word read as two ("multiuser" in "multi-user")


@dataclass(frozen=True)
class Annotated:
    """The searchable part of one paper's annotation."""

    starred: bool
    status: str
    note_words: tuple[str, ...]
    tags: tuple[str, ...]

    @classmethod
    def of(cls, annotation: Any) -> Annotated:
        note = getattr(annotation, "note", "") or ""
        tags = tuple(fold(str(tag)) for tag in (getattr(annotation, "tags", ()) or ()))
        return cls(
            starred=bool(getattr(annotation, "starred", False)),
            status=str(getattr(annotation, "status", "unread") or "unread"),
            note_words=tuple(split_words(fold(note))),
            tags=tags,
        )

    @property
    def words(self) -> tuple[str, ...]:
        return self.note_words + tuple(word for tag in self.tags for word in split_words(tag))


@dataclass
class Scoring:
    variants: dict[int, float]  # term id -> weight
    title_only: bool
    idf: float  # the word's own weight: no variant weighs more
    note_hits: dict[int, float] = field(default_factory=dict)  # also papers holding the word as two


@dataclass
class Evaluation:
    index: SearchIndex
    annotated: dict[int, Annotated]
    word_sets: list[set[int]] = field(default_factory=list)
    near_sets: list[set[int]] = field(default_factory=list)  # papers holding only a near form of a free word
    required: list[set[int]] = field(default_factory=list)
    excluded: set[int] = field(default_factory=set)
    scoring: list[Scoring] = field(default_factory=list)
    highlight: list[WordMatcher] = field(default_factory=list)
    free: list[tuple[WordMatcher, Scoring]] = field(default_factory=list)  # the free words, in order
    phrases: list[tuple[str, ...]] = field(default_factory=list)
    _memo: dict[str, bool] = field(default_factory=dict)

    # -- sets of papers ---------------------------------------------------------------------

    def note_hits(self, matcher: WordMatcher, tags_too: bool = True) -> dict[int, float]:
        hits = {}
        for pos, ann in self.annotated.items():
            words = ann.words if tags_too else ann.note_words
            weight = max((matcher.weight(stem(word)) for word in words), default=0.0)
            if weight:
                hits[pos] = weight
        return hits

    def note_phrase(self, words: tuple[str, ...]) -> set[int]:
        pattern = phrase_pattern(words)
        return {pos for pos, ann in self.annotated.items() if pattern.search(" ".join(ann.note_words))}

    def add_words(self, term: Term, title_only: bool = False) -> None:
        index = self.index
        for matcher in matchers(term.value, term.prefix):
            if term.negated:
                exact = matcher.exact
                variants = index.expand(exact)
                self.excluded |= index.docs(variants, title_only)
                if not title_only:
                    self.excluded |= set(self.note_hits(exact))
                continue
            variants = index.expand(matcher)
            docs = index.docs({tid: w for tid, w in variants.items() if w > FAINT}, title_only)
            hits = {} if title_only else self.note_hits(matcher)
            if not title_only:
                for parts in index.compounds(matcher.word):
                    for doc in index.phrase_docs(list(parts), False, COMPOUND_POOL):
                        hits[doc] = max(hits.get(doc, 0.0), NEAREST)
                    self.phrases.append(parts)
            docs.update(hits)
            scoring = Scoring(variants, title_only, index.word_idf(variants), hits)
            if title_only:
                self.required.append(docs)
            else:
                self.word_sets.append(docs)
                near = index.docs({tid: w for tid, w in variants.items() if w == NEAR_FORM}) - docs
                self.near_sets.append(near)
                self.free.append((matcher, scoring))
            self.scoring.append(scoring)
            self.highlight.append(matcher)

    def join_neighbours(self) -> None:
        """Neighbouring words also match their joined form: "multi user" finds "multiuser"."""
        index = self.index
        for k in range(len(self.free) - 1):
            (first, one), (second, two) = self.free[k], self.free[k + 1]
            joined = WordMatcher.of(first.word + second.word).exact
            tid = index.term_ids.get(joined.stem)
            if tid is None:
                continue
            docs = index.docs({tid: NEAREST})
            for n, scoring in ((k, one), (k + 1, two)):
                scoring.variants[tid] = max(scoring.variants.get(tid, 0.0), NEAREST)
                self.word_sets[n] |= docs
            self.highlight.append(joined)

    def add_phrase(self, term: Term, title_only: bool = False, note_only: bool = False) -> None:
        words = tuple(split_words(fold(term.value)))
        if not words:
            return
        if len(words) == 1 and not note_only:
            single = Term("word", words[0], term.negated)
            return self.add_words(single, title_only)
        docs = self.note_phrase(words)
        if not note_only:
            docs |= self.index.phrase_docs(list(words), title_only)
        if term.negated:
            self.excluded |= docs
            return
        self.required.append(docs)
        self.phrases.append(words)
        for matcher in matchers(" ".join(words)):
            variants = self.index.expand(matcher.exact)
            self.scoring.append(Scoring(variants, title_only, self.index.word_idf(variants)))

    def flag_docs(self, flag: str) -> set[int]:
        items = self.annotated.items()
        if flag == "starred":
            return {pos for pos, ann in items if ann.starred}
        if flag == "noted":
            return {pos for pos, ann in items if ann.note_words}
        if flag == "unread":
            return set(self.index.everything) - {pos for pos, ann in items if ann.status in ("reading", "read")}
        return {pos for pos, ann in items if ann.status == flag}

    def add(self, term: Term) -> None:
        kind = term.kind
        if kind == "word":
            self.add_words(term)
        elif kind == "phrase":
            self.add_phrase(term)
        elif kind == "title":
            self.add_phrase(term, title_only=True) if term.quoted else self.add_words(term, title_only=True)
        elif kind == "note":
            if term.quoted:
                self.add_phrase(term, note_only=True)
            else:
                for matcher in matchers(term.value, term.prefix):
                    self._constrain(set(self.note_hits(matcher, tags_too=False)), term.negated)
        elif kind == "tag":
            tag = fold(term.value)
            prefix = term.prefix
            docs = {
                pos
                for pos, ann in self.annotated.items()
                if any(t == tag or (prefix and t.startswith(tag)) for t in ann.tags)
            }
            self._constrain(docs, term.negated)
        elif kind == "id":
            prefix = term.value.lower().lstrip("#")
            papers = self.index.papers
            self._constrain({n for n, paper in enumerate(papers) if paper.id.startswith(prefix)}, term.negated)
        elif kind == "is":
            self._constrain(self.flag_docs(term.value), term.negated)

    def _constrain(self, docs: set[int], negated: bool) -> None:
        if negated:
            self.excluded |= docs
        else:
            self.required.append(docs)

    # -- ranking ----------------------------------------------------------------------------

    def ranked(self) -> tuple[list[int], list[float], int]:
        sets = sorted(self.word_sets + self.required, key=len)
        full = set(reduce(set.intersection, sets[1:], set(sets[0]))) if sets else set(self.index.everything)
        full -= self.excluded
        partial: set[int] = set()
        if len(self.word_sets) >= 2:
            partial = set().union(*self.word_sets, *self.near_sets)
            for docs in self.required:
                partial &= docs
            partial -= self.excluded
            partial -= full
        best = dict.fromkeys(full | partial, 0.0)
        candidates = set(best)
        for scoring in self.scoring:
            self.index.score_into(scoring.variants, candidates, best, scoring.title_only, scoring.idf)
            for pos, weight in scoring.note_hits.items():
                if pos in best:
                    best[pos] += weight * scoring.idf * NOTE_BOOST
        first = sorted(full)
        first.sort(key=best.__getitem__, reverse=True)  # stable: ties stay in file order
        rest = sorted(partial)
        rest.sort(key=best.__getitem__, reverse=True)  # by score: one rare word outweighs two common ones
        positions = first + rest
        return positions, [round(best[pos], 6) for pos in positions], len(first)

    # -- highlighting -----------------------------------------------------------------------

    def _hit(self, word: str) -> bool:
        hit = self._memo.get(word)
        if hit is None:
            term = stem(word)
            hit = self._memo[word] = any(m.weight(term) for m in self.highlight)
        return hit

    def spans(self, text: str) -> list[tuple[int, int]]:
        tokens = list(word_spans(text))
        found = [(start, end) for start, end, word in tokens if word and self._hit(word)]
        for phrase in self.phrases:
            size, stems = len(phrase), [stem(word) for word in phrase]
            for n in range(len(tokens) - size + 1):
                if all(stem(tokens[n + k][2]) == stems[k] for k in range(size)):
                    found.append((tokens[n][0], tokens[n + size - 1][1]))
        merged: list[tuple[int, int]] = []
        for start, end in sorted(found):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged

    def matched_terms(self, position: int) -> list[str]:
        paper = self.index.papers[position]
        texts = [paper.title, paper.plain]
        ann = self.annotated.get(position)
        out: dict[str, None] = {}
        for text in texts:
            for start, end in self.spans(text):
                out[fold(text[start:end])] = None
        for word in ann.words if ann else ():
            if self._hit(word):
                out[word] = None
        return list(out)


def evaluate(index: SearchIndex, query: Query, annotations: Mapping[str, Any]) -> Evaluation:
    annotated = {}
    for paper_id, annotation in annotations.items():
        pos = index.position_of_id.get(paper_id)
        if pos is not None and annotation is not None:
            annotated[pos] = Annotated.of(annotation)
    evaluation = Evaluation(index, annotated)
    for term in query.terms:
        evaluation.add(term)
    evaluation.join_neighbours()
    return evaluation


__all__ = ["EXACT", "Evaluation", "evaluate"]
