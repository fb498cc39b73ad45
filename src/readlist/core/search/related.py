"""Related papers: the abstracts most like a paper's, found through the search index.

"More like this": the paper's heaviest terms (TF-IDF) are run as one query over the search index's
postings and scored by cosine similarity, then divided by the paper's score against itself, so an
identical abstract scores 1. Beyond the search index (cached on disk) this needs one number per paper,
its vector's length, computed in one pass over the postings (0.1 s at 10k papers, 1.2 s at 100k) and
kept beside the cached index. A separate similarity index would take seconds to build and, at 100k
papers, gigabytes to hold.
"""

from __future__ import annotations

import heapq
import math
import threading
import time
from array import array
from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from ..text.tokens import STOPWORDS, index_form, split_words, stem
from .postings import BuildCancelled

if TYPE_CHECKING:
    from ..papers.paper import Paper
    from .index import SearchIndex

QUERY_TERMS = 40  # the paper's heaviest terms; the rest carry little of its weight
LENGTHS_VERSION = 1  # of how lengths are measured (boilerplate, MAX_DF_SHARE): a change makes saved ones stale
MAX_DF_SHARE = 0.5  # terms in more than half the papers say nothing about relatedness

# Words that relate papers by style, not by topic: function words, and those every abstract uses to
# talk about itself.
BOILERPLATE = """
    about above across after again against all almost also although among amongst and another any are
    around because been before being below between both but can cannot could does doing done down during
    each either else even ever every few for from further had has have having her here hers him his how
    however into its itself just least less many may might more most much must neither nor not now off
    once one only onto other others our ours out over own per rather same several she should since some
    such than that the their theirs them then there these they this those through thus too toward towards
    under until upon very via was we were what when where whether which while who whom whose why will
    with within without would yet you your yours
    paper propose proposed proposes present presents show shows shown using use used uses based new
    approach approaches method methods result results work works study studies novel existing introduce
    introduces well furthermore moreover first second two three different various
""".split()


@cache
def _boilerplate() -> frozenset[str]:
    return frozenset(stem(word) for word in BOILERPLATE) | STOPWORDS


def tokens(text: str) -> Counter[str]:
    """Term counts of an abstract as the search index reads it, less stopwords and boilerplate."""
    skip = _boilerplate()
    return Counter(term for term in map(stem, split_words(index_form(text))) if term not in skip)


class RelatedIndex:
    """Related papers over a search index; reads only (the lengths are computed once, under a lock),
    so safe from several threads."""

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self.size = len(index)
        self._lengths: array | None = None
        self._lock = threading.Lock()

    @classmethod
    def build(cls, papers: Sequence[Paper]) -> RelatedIndex:
        from .index import SearchIndex

        return cls(SearchIndex.build(papers))

    def _kept(self, tid: int) -> float:
        """A term's IDF, or 0.0 for a term that cannot relate papers (in one paper, in most, boilerplate)."""
        df = self.index.data.body.count(tid)
        if not 2 <= df <= max(2, MAX_DF_SHARE * self.size) or self.index.data.terms[tid] in _boilerplate():
            return 0.0
        return math.log(self.size / df)

    def lengths(self, cancelled: threading.Event | None = None) -> array:
        """Each paper's TF-IDF vector length: saved beside a cached index, measured when not there. Raises
        BuildCancelled if `cancelled` is set while they are measured (a later call measures them)."""
        from .cache import lengths_path, load_lengths, save_lengths

        with self._lock:
            if self._lengths is None:
                path = lengths_path(self.index)
                saved = load_lengths(path, LENGTHS_VERSION, self.size) if path is not None else None
                self._lengths = saved if saved is not None else self._measure(cancelled)
                if saved is None and path is not None:
                    save_lengths(self._lengths, LENGTHS_VERSION, path)
            return self._lengths

    def _measure(self, cancelled: threading.Event | None) -> array:
        body, log = self.index.data.body, math.log
        squares = [0.0] * self.size
        for tid in range(len(self.index.data.terms)):
            if not tid & 63:
                time.sleep(0)  # let a waiting thread (the UI's) run now, not after the interpreter's 5 ms
                if cancelled is not None and cancelled.is_set():
                    raise BuildCancelled
            idf = self._kept(tid)
            if idf:
                for doc, tf in zip(body.docs_of(tid), body.tfs_of(tid), strict=True):
                    squares[doc] += ((1.0 + log(tf)) * idf) ** 2
        return array("d", (math.sqrt(x) or 1.0 for x in squares))

    def _query(self, position: int) -> list[tuple[int, float, float]]:
        """The paper's heaviest terms: (term id, TF-IDF weight, IDF)."""
        ids, weighted = self.index.term_ids, []
        for term, tf in tokens(self.index.papers[position].text).items():
            tid = ids.get(term)
            idf = self._kept(tid) if tid is not None else 0.0
            if idf:
                weighted.append((tid, (1.0 + math.log(tf)) * idf, idf))
        return heapq.nlargest(QUERY_TERMS, weighted, key=lambda item: item[1])

    def related(self, position: int, k: int = 5) -> list[tuple[int, float]]:
        """Up to `k` other papers most like the one at `position`: (position, similarity in (0, 1]), best first.

        Papers sharing none of its heavy terms are never listed; ties go to the earlier paper.
        """
        if not 0 <= position < self.size:
            raise IndexError(f"position {position} outside 0..{self.size - 1}")
        body, lengths, log = self.index.data.body, self.lengths(), math.log
        scores: dict[int, float] = {}
        get = scores.get
        for tid, weight, idf in self._query(position):
            weight *= idf
            for doc, tf in zip(body.docs_of(tid), body.tfs_of(tid), strict=True):
                scores[doc] = get(doc, 0.0) + weight * (1.0 + log(tf)) / lengths[doc]
        itself = scores.pop(position, 0.0)
        if not itself:
            return []
        best = heapq.nlargest(k, scores.items(), key=lambda item: (item[1], -item[0]))
        return [(doc, round(min(score / itself, 1.0), 6)) for doc, score in best if score > 0]
