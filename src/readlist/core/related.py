"""Related papers: TF-IDF cosine similarity of abstracts over an inverted index.

Own implementation (a few dozen lines) rather than scikit-learn: no numpy dependency, and
an inverted index with a pruned query vector answers one paper's neighbours at 10k papers
in milliseconds. The index is immutable after `build`, so reads from several threads are safe.
"""

from __future__ import annotations

import gc
import heapq
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from .paper import Paper

QUERY_TERMS = 40  # the query paper's heaviest terms; the rest carry little of its weight
MAX_DF_SHARE = 0.5  # terms in more than half the papers say nothing about relatedness

_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
_WORD = re.compile(r"[^\W\d_][^\W_]{2,}")
_STOPWORDS = frozenset(
    """
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
    introduces well also furthermore moreover however first second two three different various
    mathbf mathcal mathrm mathbb textbf textit emph cite citep citet url href
    """.split()
)


def _stem(word: str) -> str | None:
    """A light plural fold ("models" -> "model"); None for stopwords."""
    if word in _STOPWORDS:
        return None
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
        if word.endswith("ie") and len(word) > 4:
            word = word[:-2] + "y"
    return word


def _raw_words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(_LATEX_COMMAND.sub(" ", text).lower()))


def tokens(text: str) -> Counter[str]:
    """Term counts of an abstract as written (LaTeX commands dropped, lower-cased, stopwords out)."""
    out: Counter[str] = Counter()
    for word, count in _raw_words(text).items():
        term = _stem(word)
        if term is not None:
            out[term] += count
    return out


@dataclass(frozen=True)
class RelatedIndex:
    """Unit-length TF-IDF vectors of every paper, and the inverted index over them."""

    size: int
    doc_terms: tuple[tuple[tuple[int, float], ...], ...] = field(repr=False)  # per paper: (term id, weight)
    postings: tuple[tuple[tuple[int, ...], tuple[float, ...]], ...] = field(
        repr=False
    )  # per term: (positions, weights)

    @classmethod
    def build(cls, papers: Sequence[Paper]) -> RelatedIndex:
        # Building allocates about a million small objects that all live on; the cyclic collector
        # would rescan them repeatedly for nothing (a quarter of the build time at 10k papers).
        enabled = gc.isenabled()
        gc.disable()
        try:
            return cls._build(papers)
        finally:
            if enabled:
                gc.enable()

    @classmethod
    def _build(cls, papers: Sequence[Paper]) -> RelatedIndex:
        raw = [_raw_words(paper.text) for paper in papers]
        stems: dict[str, str | None] = {}
        counts: list[dict[str, int]] = []
        df: Counter[str] = Counter()
        for words in raw:
            terms: dict[str, int] = {}
            for word, k in words.items():
                term = stems.get(word, "")
                if term == "":
                    term = stems[word] = _stem(word)
                if term is not None:
                    terms[term] = terms.get(term, 0) + k
            counts.append(terms)
            df.update(terms.keys())
        n = len(counts)
        limit = max(2, MAX_DF_SHARE * n)
        # Terms in only one paper cannot relate two papers; very common ones only add noise.
        kept = [t for t, d in df.items() if 2 <= d <= limit]
        vocab = {term: i for i, term in enumerate(kept)}
        idf = [math.log(n / df[term]) for term in kept]
        log = math.log
        post_docs: list[list[int]] = [[] for _ in kept]
        post_weights: list[list[float]] = [[] for _ in kept]
        doc_terms = []
        for position, terms in enumerate(counts):
            ids = [vocab[t] for t in terms if t in vocab]
            weights = [(1.0 + log(terms[kept[i]])) * idf[i] for i in ids]
            norm = math.sqrt(sum(w * w for w in weights)) or 1.0
            weights = [w / norm for w in weights]
            doc_terms.append(tuple(zip(ids, weights, strict=True)))
            for i, w in zip(ids, weights, strict=True):
                post_docs[i].append(position)
                post_weights[i].append(w)
        postings = tuple((tuple(d), tuple(w)) for d, w in zip(post_docs, post_weights, strict=True))
        return cls(size=n, doc_terms=tuple(doc_terms), postings=postings)

    def related(self, position: int, k: int = 5) -> list[tuple[int, float]]:
        """Up to `k` other papers most similar to the one at `position`: (position, cosine), best first.

        The query uses the paper's QUERY_TERMS heaviest terms, so scores are a close lower bound
        of the full cosine. Papers sharing no term are never listed.
        """
        if not 0 <= position < self.size:
            raise IndexError(f"position {position} outside 0..{self.size - 1}")
        scores: dict[int, float] = {}
        get = scores.get
        query = heapq.nlargest(QUERY_TERMS, self.doc_terms[position], key=lambda tw: tw[1])
        for term, weight in query:
            docs, weights = self.postings[term]
            for doc, w in zip(docs, weights, strict=True):
                scores[doc] = get(doc, 0.0) + weight * w
        scores.pop(position, None)
        best = heapq.nlargest(k, scores.items(), key=lambda item: (item[1], -item[0]))
        return [(doc, round(score, 6)) for doc, score in best if score > 0]
