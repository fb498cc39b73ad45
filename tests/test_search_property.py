"""No query string makes search raise; errors come back in the result."""

from hypothesis import given, settings
from hypothesis import strategies as st

from readlist.core.papers.paper import Paper
from readlist.core.search.index import SearchIndex
from readlist.core.text.normalize import paper_id
from readlist.core.text.tokens import phrase_finder, phrase_pattern

TEXTS = [
    "Graph neural networks with message passing.",
    r"An $\epsilon$-greedy policy; café naïve Bayes, α-divergence and \textbf{bold} claims.",
    "Diffusion models generate images.",
]
INDEX = SearchIndex.build([Paper(id=paper_id(t), index=n + 1, text=t) for n, t in enumerate(TEXTS)])
PIECES = st.sampled_from(['"', "-", ":", "is:", "title:", "tag:", "id:", "note:", "$", "\\", "ε", " ", "graph", "é"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=6), PIECES), max_size=8).map("".join))
def test_no_query_raises(query):
    result = INDEX.search(query)
    assert result.error is None or not result.positions
    assert len(result.positions) == len(result.scores)
    assert 0 <= result.full_matches <= len(result.positions)
    for pos in result.positions:
        for start, end in result.spans(INDEX.papers[pos].plain):
            assert 0 <= start < end <= len(INDEX.papers[pos].plain)


WORDS = st.sampled_from(["graph", "graphs", "neural", "xgraph", "net", "nets", "a", "_", "-", " ", ", ", "é", "1"])


@settings(max_examples=400, deadline=None)
@given(st.lists(WORDS, max_size=12).map("".join), st.lists(st.sampled_from(["graph", "neural", "net"]), min_size=1))
def test_fast_phrase_check_agrees_with_the_pattern(text, words):
    assert phrase_finder(words)(text) == bool(phrase_pattern(words).search(text))
