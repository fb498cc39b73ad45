"""No query string makes search raise; errors come back in the result."""

from hypothesis import given, settings
from hypothesis import strategies as st

from readlist.core.paper import Paper
from readlist.core.search import SearchIndex
from readlist.core.text import paper_id

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
