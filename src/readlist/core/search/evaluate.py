"""Running one parsed query against a search index: which papers match, how well, and what to highlight."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from itertools import chain, compress, filterfalse, islice, repeat
from operator import add
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from ..papers.paper import Paper
from ..text.tokens import STOPWORDS, fold, split_words
from .fields import FieldLookups
from .marks import Highlighter
from .matching import FAINT, NEAREST, WordMatcher, matchers
from .notes import Annotated, flag_docs, note_hits, note_phrase
from .postings import BuildCancelled, IndexData
from .query import Query, Term, year_range
from .record_fields import RecordFields

NOTE_BOOST = 1.0
COMPOUND_POOL = 5000  # papers checked at most for a word read as two ("multiuser" in "multi-user")


class Index(Protocol):
    """What evaluating a query needs of its index: a `SearchIndex`, whose module imports this one."""

    papers: tuple[Paper, ...]
    data: IndexData
    term_ids: Mapping[str, int]
    position_of_id: dict[str, int]
    annotated_by_object: dict
    fields: FieldLookups
    records: RecordFields

    @property
    def everything(self) -> range: ...

    def expand(self, matcher: WordMatcher) -> dict[int, float]: ...

    def word_idf(self, variants: Mapping[int, float]) -> float: ...

    def word_scores(
        self,
        variants: Mapping[int, float],
        candidates: set[int] | range,
        title_only: bool = False,
        cap: float | None = None,
        cancelled: threading.Event | None = None,
        kept: Kept | None = None,
    ) -> dict[int, float]: ...


@dataclass
class Scoring:
    variants: dict[int, float]  # term id -> weight
    title_only: bool
    idf: float  # the word's own weight: no variant weighs more
    note_hits: dict[int, float] = field(default_factory=dict)  # also papers holding the word as two
    typing: bool = False  # the word being typed (a prefix): its scores change at the next key


@dataclass
class Evaluation:
    index: Index
    annotated: dict[int, Annotated]
    word_sets: list[set[int]] = field(default_factory=list)
    required: list[set[int]] = field(default_factory=list)
    excluded: set[int] = field(default_factory=set)
    scoring: list[Scoring] = field(default_factory=list)
    marks: Highlighter = field(default_factory=Highlighter)
    free: list[tuple[WordMatcher, Scoring]] = field(default_factory=list)  # the free words, in order
    cancelled: threading.Event | None = None  # a newer query took over: stop at the next step (title: may take seconds)

    def check(self) -> None:
        """Raise BuildCancelled when the caller gave up on this query (typed on): each step of a query can take a
        tenth of a second at 100k papers, which the next query would wait for."""
        if self.cancelled is not None and self.cancelled.is_set():
            raise BuildCancelled

    # -- sets of papers ---------------------------------------------------------------------

    def add_words(self, term: Term, title_only: bool = False) -> None:
        index, fields = self.index, self.index.fields
        if term.negated and not title_only:
            self._exclude_common_words(term.value)
        for matcher in matchers(term.value, term.prefix):
            if term.negated:
                exact = matcher.exact
                variants = index.expand(exact)
                found = fields.docs(variants, title_only, exact, self.cancelled)
                if title_only:
                    found = self._own_titles(found)
                self.excluded |= found | set(note_hits(self.annotated, exact, title_only=title_only))
                continue
            word = self._word(matcher)
            variants = dict(word.variants)  # a copy: join_neighbours adds to it
            strong = {tid: w for tid, w in variants.items() if w > FAINT}
            docs = fields.docs(strong, title_only, matcher, self.cancelled)
            if title_only:
                docs = self._own_titles(docs)
            hits = note_hits(self.annotated, matcher, title_only=title_only)
            if not title_only:
                for parts in fields.compounds(matcher.word):
                    for doc in fields.phrase_docs(list(parts), False, COMPOUND_POOL):
                        hits[doc] = max(hits.get(doc, 0.0), NEAREST)
                    self.marks.phrases.append(parts)
            docs.update(hits)
            scoring = Scoring(variants, title_only, word.idf, hits, typing=matcher.prefix)
            if title_only:
                self.required.append(docs)
            else:
                self.word_sets.append(docs)
                self.free.append((matcher, scoring))
            self.scoring.append(scoring)
            self.marks.words.append(matcher)
            self.marks.stems.update(index.data.terms[tid] for tid, weight in variants.items() if weight > FAINT)

    def _word(self, matcher: WordMatcher) -> Word:
        """The terms a query word matches and its weight, kept for the next queries (see Kept): typing on, the words
        before the last are expanded once, not again at each key (a short word's typos take 4-8 ms to find among
        100k papers' terms)."""
        index = self.index
        kept = _kept(_KEPT_WORDS, index, WORDS_KEPT)
        word = kept.get(matcher)
        if word is None:
            variants = index.expand(matcher)
            word = Word(variants, index.word_idf(variants))
            kept.put(matcher, word)
        return word

    def _own_titles(self, docs: set[int]) -> set[int]:
        """Papers the user gave a title of their own are judged by it, not by the one it replaces."""
        return {doc for doc in docs if doc not in self.annotated or not self.annotated[doc].title_words}

    def join_neighbours(self) -> None:
        """Neighbouring words also match their joined form: "multi user" finds "multiuser"."""
        index = self.index
        for k in range(len(self.free) - 1):
            (first, one), (second, two) = self.free[k], self.free[k + 1]
            joined = WordMatcher.of(first.word + second.word).exact
            tid = index.term_ids.get(joined.stem)
            if tid is None:
                continue
            docs = index.fields.docs({tid: NEAREST})
            for n, scoring in ((k, one), (k + 1, two)):
                scoring.variants[tid] = max(scoring.variants.get(tid, 0.0), NEAREST)
                self.word_sets[n] |= docs
            self.marks.words.append(joined)

    def _exclude_common_words(self, text: str) -> None:
        """`-the`: the stopwords among excluded words, which the matchers leave out, are looked for in the texts."""
        for word in split_words(fold(text)):
            if word in STOPWORDS:
                self.excluded |= self.index.fields.common_word_docs(word, self.cancelled)
                self.excluded |= {pos for pos, ann in self.annotated.items() if word in ann.words}

    def add_phrase(self, term: Term, title_only: bool = False, note_only: bool = False) -> None:
        words = tuple(split_words(fold(term.value)))
        if not words:
            return
        if len(words) == 1 and not note_only:
            single = Term("word", words[0], term.negated)
            return self.add_words(single, title_only)
        docs = note_phrase(self.annotated, words, note=not title_only, title=not note_only)
        if not note_only:
            found = self.index.fields.phrase_docs(list(words), title_only, cancelled=self.cancelled)
            if title_only:
                found = self._own_titles(found)
            docs |= found
        if term.negated:
            self.excluded |= docs
            return
        self.required.append(docs)
        self.marks.phrases.append(words)
        for matcher in matchers(" ".join(words)):
            variants = self.index.expand(matcher.exact)
            self.scoring.append(Scoring(variants, title_only, self.index.word_idf(variants)))

    def add(self, term: Term) -> None:
        self.check()
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
                    self._constrain(set(note_hits(self.annotated, matcher, tags_too=False)), term.negated)
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
            self._constrain(flag_docs(self.annotated, term.value, self.index.everything), term.negated)
        elif kind == "in":
            pass  # which papers are searched (`in:all`: every list's), chosen before the search
        else:
            self.add_record_field(term)

    def add_record_field(self, term: Term) -> None:
        """`author:`, `year:`, `venue:` and `cat:`: filters on what the paper file says of a paper."""
        kind, records = term.kind, self.index.records
        if kind == "year":
            self._constrain(records.year_docs(*year_range(term.value)), term.negated)
        elif kind == "cat":
            self._constrain(records.category_docs(term.value, term.prefix), term.negated)
        elif term.quoted and len(words := split_words(fold(term.value))) > 1:
            found = self.index.fields.author_phrase_docs if kind == "author" else records.venue_phrase_docs
            self._constrain(found(words), term.negated)
        else:
            for matcher in matchers(term.value, term.prefix):
                matcher = matcher.exact if term.negated else matcher
                if kind == "author":
                    variants = self.index.expand(matcher)
                    docs = self.index.fields.author_docs({tid: w for tid, w in variants.items() if w > FAINT})
                else:
                    docs = records.venue_docs(matcher)
                self._constrain(docs, term.negated)

    def _constrain(self, docs: set[int], negated: bool) -> None:
        if negated:
            self.excluded |= docs
        else:
            self.required.append(docs)

    # -- ranking ----------------------------------------------------------------------------

    def ranked(self) -> tuple[Sequence[int], Sequence[float], int]:
        self.check()
        sets = sorted(self.word_sets + self.required, key=len)
        full = reduce(set.intersection, sets[1:], set(sets[0])) if sets else set(self.index.everything)
        full -= self.excluded
        candidates = full
        if len(self.word_sets) >= 2:
            # A paper holding no query word is no partial match, even with near forms of them ("quantifying" for
            # "quantum"): those only rank the papers listed.
            candidates = set().union(*self.word_sets)
            for docs in self.required:
                candidates &= docs
            candidates -= self.excluded
        del sets
        self._forget_sets()  # before the scores are made: a common word's papers are 7 MB at 100k
        parts: list[dict[int, float]] = []  # each word's scores (and its note's), summed below
        for scoring in self.scoring:
            self.check()
            parts.append(self._word_scores(scoring, candidates))
            notes = {pos: weight * scoring.idf * NOTE_BOOST for pos, weight in scoring.note_hits.items()}
            if notes:
                parts.append(notes)
        self.check()
        found = list(full)  # the full matches first: the ranking tells them from the others by where they are in `best`
        if candidates is not full:
            found.extend(filterfalse(full.__contains__, candidates))
        best = dict(zip(found, chain.from_iterable(self._sums(found, parts)), strict=True))
        self.check()
        ranking = Ranking(best, len(full))
        return ranking, Scores(ranking, best), len(full)

    def _sums(self, found: list[int], parts: list[dict[int, float]]) -> Iterator[Iterator[float]]:
        """The papers' sums over `parts`, SUMMED_AT_ONCE papers at a time, looking between two at whether the query
        was typed over: the query typed next waits for no more than those (summing 90k papers took 35 ms)."""
        for start in range(0, len(found), SUMMED_AT_ONCE):
            if start:
                self.check()
            yield _summed(found[start : start + SUMMED_AT_ONCE], parts)

    def _forget_sets(self) -> None:
        """Drop the papers each word matched once the candidates are known: the result keeps this evaluation (for its
        highlights) as long as it is shown, and the sets of a query's common words at 100k papers hold tens of MB."""
        self.word_sets, self.required, self.excluded, self.free = [], [], set(), []

    def _word_scores(self, scoring: Scoring, candidates: set[int]) -> dict[int, float]:
        """A word's scores for the candidates (and maybe other papers: `_summed` reads the candidates' only).

        Where scoring the word's every paper costs what scoring the candidates does (they are most of its papers,
        as when any query word makes a partial match), its scores are kept for the next queries: typing on, the
        words before the last are scored once, not again at each key."""
        index = self.index
        body = index.data.body
        if any(len(candidates) * 8 < body.count(tid) for tid in scoring.variants):  # few candidates: look them up
            return index.word_scores(scoring.variants, candidates, scoring.title_only, scoring.idf, self.cancelled)
        kept = _kept(_KEPT, index, WORD_SCORES_KEPT)
        key = (frozenset(scoring.variants.items()), scoring.title_only, scoring.idf)
        scores = kept.get(key)
        if scores is None:
            variants = _kept(_KEPT_VARIANTS, index, VARIANT_SCORES_KEPT)
            scores = index.word_scores(
                scoring.variants, index.everything, scoring.title_only, scoring.idf, self.cancelled, variants
            )
            kept.put(key, scores, evict=not scoring.typing)
        return scores

    # -- highlighting -----------------------------------------------------------------------

    def spans(self, text: str) -> list[tuple[int, int]]:
        return self.marks.spans(text)

    def matched_terms(self, position: int) -> list[str]:
        paper = self.index.papers[position]
        ann = self.annotated.get(position)
        return self.marks.terms([paper.title, paper.plain, *paper.authors], ann.words if ann else ())


WORD_SCORES_KEPT = 200_000  # papers' scores kept for the latest query words: two common ones at 100k papers, ~20 MB
VARIANT_SCORES_KEPT = 300_000  # papers' scores kept for common variants of the words typed (see word_scores), 3.6 MB
WORDS_KEPT = 20_000  # terms matched by the latest query words, kept with them (see Evaluation._word)


@dataclass(frozen=True)
class Word:
    """The terms a query word matches, whatever the words beside it: shared by the queries holding it."""

    variants: dict[int, float]  # term id -> weight (see SearchIndex.expand); copied before any change
    idf: float

    def __len__(self) -> int:
        return len(self.variants)


class Kept:
    """What the latest query words found (their scores over every paper holding them, or the terms they match), the
    least recently used dropped past `limit` of them (papers, terms); searches in several threads share them. The
    word being typed is kept only where it drops none: it changes at the next key, while the words typed before it
    are looked up again at each key once they are dropped (the last key of "large langauge models" at 100k papers
    took 0.29 s of CPU, then 0.19 s)."""

    def __init__(self, limit: int) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[Any, Any] = OrderedDict()
        self._size = 0
        self._limit = limit

    def get(self, key):
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def put(self, key, found, evict: bool = True) -> None:
        with self._lock:
            if key in self._kept or len(found) > self._limit:
                return
            if not evict and self._size + len(found) > self._limit:
                return
            self._kept[key] = found
            self._size += len(found)
            while self._size > self._limit:
                _, dropped = self._kept.popitem(last=False)
                self._size -= len(dropped)


_KEPT: WeakKeyDictionary[Any, Kept] = WeakKeyDictionary()  # word scores, by index: gone with it
_KEPT_VARIANTS: WeakKeyDictionary[Any, Kept] = WeakKeyDictionary()  # common variants' scores, by index
_KEPT_WORDS: WeakKeyDictionary[Any, Kept] = WeakKeyDictionary()  # words' terms, by index


def _kept(store: WeakKeyDictionary[Any, Kept], index: Index, limit: int) -> Kept:
    """What `store` keeps for this index, made the first time it is asked for."""
    kept = store.get(index)
    return store.setdefault(index, Kept(limit)) if kept is None else kept


def _summed(keys: list[int], parts: list[dict[int, float]]) -> Iterator[float]:
    """Each key's sum over `parts`, in their order (0.0 where a part lacks it), in C-level loops: a per-paper
    loop in Python took a tenth of a second for each word of a query matching 90k papers. The sum starts at the first
    part's score, which is 0.0 plus it to the last bit (scores are never negative)."""
    if not parts:
        return repeat(0.0, len(keys))
    total: Iterator[float] = map(parts[0].get, keys, repeat(0.0))
    for part in parts[1:]:
        total = map(add, total, map(part.get, keys, repeat(0.0)))
    return total


SUMMED_AT_ONCE = 16_384  # papers whose scores are summed between two looks at whether the query was typed over
TOP = 1000  # papers a ranking puts in order when the search answers: pages of rows, far more than a screen shows


class Ranking(Sequence[int]):
    """The papers a search found, in rank order: the full matches by score, then the others by score, ties in file
    order. Only the first TOP of each are put in order when the search answers (sorting all of them took 10-25 ms at
    100k papers, at each key typed, for rows seldom scrolled to); the rest when a row past them is first read."""

    def __init__(self, best: dict[int, float], full: int) -> None:
        """`best`: each paper found with its score, the `full` matches first."""
        self._best = best
        self._full = _Ordered(best, 0, full)
        self._others = _Ordered(best, full, len(best))
        self._full.top(TOP)  # here, in the search's thread: not by the UI's, at the first row it draws
        if full < TOP:  # the rows under the divider show too
            self._others.top(TOP - full)

    def __len__(self) -> int:
        return len(self._best)

    def __getitem__(self, at):
        if isinstance(at, slice):
            start, stop, step = at.indices(len(self))
            if step != 1:
                return self._whole()[at]
            cut = len(self._full)
            if stop <= cut:
                return self._full.slice(start, stop)
            if start >= cut:
                return self._others.slice(start - cut, stop - cut)
            return self._full.slice(start, cut) + self._others.slice(0, stop - cut)
        if at < 0:
            at += len(self)
        if not 0 <= at < len(self):
            raise IndexError("ranking index out of range")
        cut = len(self._full)
        return self._full.slice(at, at + 1)[0] if at < cut else self._others.slice(at - cut, at - cut + 1)[0]

    def __contains__(self, position: object) -> bool:
        return position in self._best

    def __iter__(self):
        return iter(self._whole())

    def index(self, position, start: int = 0, stop: int | None = None) -> int:
        return self._whole().index(position, start, len(self) if stop is None else stop)

    def _whole(self) -> list[int]:
        return self._full.whole() + self._others.whole()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return repr(list(self))


SAMPLE = 4  # scores sampled for each of the papers wanted first (see _Ordered.top)


class _Ordered:
    """The papers `best` holds from its `start`-th to before its `stop`-th, put in order by score (ties in file order)
    as far as they are read: the first ones at once, all of them when one past those is read (from any thread: the
    UI's scrolling, an export's)."""

    def __init__(self, best: dict[int, float], start: int, stop: int) -> None:
        self._best = best
        self._start, self._stop = start, stop
        self._first: list[int] = []  # the first papers of the order
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._stop - self._start

    def top(self, count: int) -> list[int]:
        """At least the first `count` papers in order (all of them when there are fewer): those scoring at least a
        threshold read off a sample of the scores, sorted alone. Every paper left out scores less than each one
        taken, so those taken are the whole order's first. The scores are read in the order they were made, the
        order they lie in in memory: read in the papers' order, each a cache miss, 90k took 15 ms, not 3."""
        with self._lock:
            best, start, stop, size = self._best, self._start, self._stop, len(self)
            if len(self._first) >= min(count, size):
                return self._first
            taken: list[int] | None = None
            if size > SAMPLE * count:
                step = size // (SAMPLE * count)
                sample = sorted(islice(best.values(), start, stop, step), reverse=True)
                at = min(len(sample) - 1, (3 * count // 2) // step)  # half as many again, for ties and chance
                while taken is None or (len(taken) < count and at < len(sample) - 1):
                    at = at if taken is None else min(len(sample) - 1, 2 * at + 1)
                    scores = islice(best.values(), start, stop)
                    taken = list(compress(islice(best, start, stop), map(sample[at].__le__, scores)))
                if len(taken) < count:  # the sample's least score is above some of the papers wanted
                    taken = None
            self._first = _in_order(list(islice(best, start, stop)) if taken is None else taken, best)
            return self._first

    def whole(self) -> list[int]:
        return self.top(len(self))

    def slice(self, start: int, stop: int) -> list[int]:
        first = self._first
        return first[start:stop] if stop <= len(first) else self.top(max(TOP, stop))[start:stop]


def _in_order(docs: list[int], best: dict[int, float]) -> list[int]:
    ordered = sorted(docs)
    ordered.sort(key=best.__getitem__, reverse=True)  # stable: ties stay in file order
    return ordered


class Scores(Sequence[float]):
    """The scores of the papers ranked, in their order, rounded as they are read: rounding all of them up front
    took as long as scoring them (a quarter of a second for 90k papers), for the few that are ever shown. (Copied into
    an array they held 7 MB less at 100k papers, for 10 ms more at each key: the key counts more.)"""

    def __init__(self, positions: Sequence[int], best: dict[int, float]) -> None:
        self._positions = positions
        self._best = best

    def __len__(self) -> int:
        return len(self._positions)

    def __getitem__(self, at):
        if isinstance(at, slice):
            return [round(self._best[pos], 6) for pos in self._positions[at]]
        return round(self._best[self._positions[at]], 6)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return repr(list(self))


def annotated_positions(index: Index, annotations: Mapping[str, Any]) -> dict[int, Annotated]:
    """The searchable part of each annotation, by paper position. Search runs on every keystroke with
    the same annotation objects (the store rebuilds them only when its data changes): each is folded
    once, and the previous call's results are kept by object, for as many annotations as there are."""
    previous = index.annotated_by_object
    kept: dict[int, tuple[Any, Annotated]] = {}
    annotated = {}
    for paper_id, annotation in annotations.items():
        pos = index.position_of_id.get(paper_id)
        if pos is None or annotation is None:
            continue
        hit = previous.get(id(annotation))
        if hit is None or hit[0] is not annotation:
            hit = (annotation, Annotated.of(annotation))
        kept[id(annotation)] = hit
        annotated[pos] = hit[1]
    index.annotated_by_object = kept  # a whole new map: other threads still read the one they took
    return annotated


def evaluate(
    index: Index, query: Query, annotations: Mapping[str, Any], cancelled: threading.Event | None = None
) -> Evaluation:
    evaluation = Evaluation(index, annotated_positions(index, annotations), cancelled=cancelled)
    for term in query.terms:
        evaluation.add(term)
    evaluation.join_neighbours()
    return evaluation


__all__ = ["Evaluation", "Ranking", "Scores", "evaluate"]
