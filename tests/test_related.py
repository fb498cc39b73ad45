"""Related papers: neighbours by abstract similarity, best first, never the paper itself."""

from __future__ import annotations

import threading

import pytest

from readlist.core.papers.paper import Paper
from readlist.core.search.related import RelatedIndex, tokens

TEXTS = [
    "Diffusion models generate images by iterative denoising; we distil the diffusion sampler into four steps.",
    "We accelerate diffusion sampling for image generation with a distilled denoising sampler.",
    "Graph neural networks suffer from oversquashing; we rewire graph edges to improve message passing.",
    "Message passing on graphs: rewiring edges of graph neural networks reduces oversquashing.",
    "Reinforcement learning agents explore sparse reward environments with curiosity bonuses.",
    "Curiosity driven exploration helps reinforcement learning agents in sparse reward games.",
    "Tokenizers for multilingual text: byte level vocabularies and their costs.",
]
PAPERS = [Paper(id=f"{n:012x}", index=n + 1, text=t) for n, t in enumerate(TEXTS)]


@pytest.fixture(scope="module")
def index():
    return RelatedIndex.build(PAPERS)


@pytest.mark.parametrize(("position", "partner"), [(0, 1), (1, 0), (2, 3), (3, 2), (4, 5), (5, 4)])
def test_the_paper_on_the_same_topic_comes_first(index, position, partner):
    related = index.related(position)
    assert related[0][0] == partner
    assert position not in [p for p, _ in related]


def test_scores_are_cosines_best_first_and_k_limits(index):
    related = index.related(0, k=5)
    scores = [s for _, s in related]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s <= 1 for s in scores)
    assert len(index.related(0, k=1)) == 1


def test_a_paper_sharing_no_terms_has_no_related_papers(index):
    assert index.related(6) == []


def test_position_outside_the_list_is_an_error(index):
    with pytest.raises(IndexError):
        index.related(len(PAPERS))


def test_identical_abstracts_score_one():
    papers = [Paper(id=f"{n:012x}", index=n + 1, text=t) for n, t in enumerate([*TEXTS[:3], TEXTS[0]])]
    related = RelatedIndex.build(papers).related(0)
    assert related[0] == (3, pytest.approx(1.0, abs=1e-4))


def test_tokens_drop_stopwords_latex_commands_and_fold_plurals():
    counts = tokens(r"We propose the $\mathcal{O}(n)$ Models and a model with Transformers")
    assert counts["model"] == 2 and counts["transformer"] == 1
    assert "the" not in counts and "mathcal" not in counts and "propose" not in counts


def test_empty_list_and_reads_from_threads():
    assert RelatedIndex.build([]).size == 0
    index = RelatedIndex.build(PAPERS)
    expected = [index.related(p) for p in range(len(PAPERS))]
    results: list[list] = []

    def worker():
        results.append([index.related(p) for p in range(len(PAPERS))])

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4


def test_vector_lengths_are_kept_beside_the_cached_index_and_measured_once(tmp_path, monkeypatch):
    from readlist.core.search.cache import load_or_build

    first = RelatedIndex(load_or_build(PAPERS, cache_dir=tmp_path))
    expected = first.related(0)
    assert len(list(tmp_path.glob("*.len"))) == 1

    def measured_again(self):
        raise AssertionError("lengths measured again")

    monkeypatch.setattr(RelatedIndex, "_measure", measured_again)
    assert RelatedIndex(load_or_build(PAPERS, cache_dir=tmp_path)).related(0) == expected


@pytest.mark.parametrize("damage", ["truncate", "garbage", "nan", "other papers"])
def test_damaged_or_foreign_saved_lengths_are_measured_again(tmp_path, damage):
    from readlist.core.search.cache import load_or_build

    expected = RelatedIndex(load_or_build(PAPERS, cache_dir=tmp_path)).related(2)
    saved = next(tmp_path.glob("*.len"))
    data = saved.read_bytes()
    head, _, values = data.partition(b"\n")
    if damage == "truncate":
        saved.write_bytes(data[:-3])
    elif damage == "garbage":
        saved.write_bytes(b"\x00" * 40)
    elif damage == "nan":
        saved.write_bytes(head + b"\n" + b"\x00\x00\x00\x00\x00\x00\xf8\x7f" + values[8:])
    else:
        saved.write_bytes(head.replace(saved.stem.encode(), b"0" * len(saved.stem)) + b"\n" + values)
    again = RelatedIndex(load_or_build(PAPERS, cache_dir=tmp_path))
    assert again.related(2) == expected
    assert saved.read_bytes() == data  # and saved again, whole
