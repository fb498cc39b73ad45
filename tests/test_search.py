"""Search behaviour on small hand-made lists: matching, typos, prefixes, accents, LaTeX, ranking, filters."""

from dataclasses import dataclass

import pytest

from readlist.core.papers import title_cache
from readlist.core.papers.paper import Paper, Record
from readlist.core.search.index import SearchIndex
from readlist.core.search.query import OPERATORS
from readlist.core.text.normalize import paper_id

ABSTRACTS = [
    "Graph neural networks learn node representations. We study message passing on large graphs.",  # 0
    "We train a transformer for machine translation. Attention is all the model needs here.",  # 1
    "An ε-greedy exploration strategy for bandits. Regret bounds follow from concentration.",  # 2
    r"We analyse $\epsilon$-greedy policies in reinforcement learning with function approximation.",  # 3
    "Café recommendations with naïve Bayes. A study of coffee shops and user reviews.",  # 4
    "Diffusion models generate images. Score matching trains the denoiser on image data.",  # 5
    "Diffusion models for protein design. We generate backbones without any pictures at all.",  # 6
    "Message passing appears in the appendix only; the paper is about convex optimisation.",  # 7
]


# What the paper file says of some of them (the others have no record).
RECORDS = {
    0: Record(
        authors=("Ada Lovelace", "Kurt Gödel"),
        year=2019,
        venue="Advances in Neural Information Processing Systems",
        categories=("cs.LG", "stat.ML"),
    ),
    1: Record(authors=("Grace Hopper",), year=2023, venue="ICML", categories=("cs.CL",)),
    5: Record(
        authors=("Alan Turing", "Ada Lovelace"),
        year=2025,
        venue="International Conference on Learning Representations",
        categories=("cs.CV",),
    ),
    6: Record(year=2021, categories=("q-bio.BM",)),
}


def make(texts, records=None):
    records = records or {}
    return [Paper(id=paper_id(t), index=n + 1, text=t, record=records.get(n)) for n, t in enumerate(texts)]


@pytest.fixture(scope="module")
def papers():
    return make(ABSTRACTS, RECORDS)


@pytest.fixture(scope="module")
def index(papers):
    return SearchIndex.build(papers)


def found(index, query, **kw):
    return list(index.search(query, **kw).positions)


def full(index, query, **kw):
    result = index.search(query, **kw)
    return list(result.positions[: result.full_matches])


@dataclass
class Note:
    starred: bool = False
    status: str = "unread"
    tags: tuple = ()
    note: str = ""


def test_every_word_must_match(index):
    assert full(index, "message passing graphs") == [0]
    assert full(index, "diffusion protein") == [6]


def test_blank_query_lists_everything_in_file_order(index, papers):
    result = index.search("  ")
    assert list(result.positions) == list(range(len(papers)))
    assert result.full_matches == len(papers) and result.error is None


@pytest.mark.parametrize("typo", ["trnasformer", "transfomer", "transformerr", "tranzformer"])
def test_one_typo_in_a_long_word(index, typo):
    assert full(index, typo + " ") == [1]


def test_two_typos_only_from_eight_letters(index):
    assert full(index, "trnasfomer ") == [1]  # 11 letters, two typos
    assert full(index, "dfifusion ") == [5, 6]  # 9 letters: a swap and a wrong letter
    assert full(index, "nod ") == []  # 3 letters: no typo allowed ("node" is not "nod")


@pytest.mark.parametrize(
    "typo, paper",
    [
        ("wnis ", 0),  # a swap that leaves no plural for the stemmer to see: "wins" is "win"
        ("seriez ", 1),  # the plural ending itself mistyped: "series"
        ("antibodiej ", 2),  # "antibodies"
        ("genreative ", 3),  # not a word, though its root "genr" is: "generative" first
    ],
)
def test_a_typo_in_a_plural_or_near_a_real_root_still_finds_the_word(typo, paper):
    texts = [
        "The agent wins every game of chess it plays against humans.",
        "Forecasting time series with state space models.",
        "Designing antibodies with protein language models.",
        "Generative models of images, learnt from a large data set.",
        "A study of film genre classification.",
    ]
    result = SearchIndex.build(make(texts)).search(typo)
    assert list(result.positions[: result.full_matches])[:1] == [paper]  # "genre" may follow "generative"
    assert result.spans(texts[paper])  # and the word is highlighted


def test_last_word_is_a_prefix_while_typing(index):
    assert full(index, "diffusion prot") == [6]
    assert full(index, "diffusion prot ") == []


def test_a_broad_prefix_still_lists_every_paper_it_matches_when_scoring_is_cut_short(index, monkeypatch):
    import readlist.core.search.index as search

    everything = set(found(index, "m"))
    assert len(everything) >= 4
    monkeypatch.setattr(search, "SCORED_PAIRS", 0)  # no completion is scored: papers still match
    assert set(found(index, "m")) == everything


def test_accents_and_case_are_ignored(index):
    assert full(index, "CAFE naive") == [4]
    assert full(index, "café NAÏVE") == [4]


@pytest.mark.parametrize("query", ["epsilon greedy", "ε-greedy", r"$\epsilon$-greedy", r"$\varepsilon$ greedy"])
def test_latex_unicode_and_names_find_the_same_papers(index, query):
    assert sorted(full(index, query)) == [2, 3]


def test_letters_emphasised_with_latex_are_found_and_highlighted_as_whole_words():
    text = r"We propose \textbf{T}rust-\textbf{R}egion \underline{P}olicy {O}p\textbf{t}imization for agents."
    papers = make([text, "Policy gradients for robots, with trust in regions of the optimisation landscape."])
    result = SearchIndex.build(papers).search('policy optimization "trust region"')
    assert list(result.positions)[: result.full_matches] == [0]
    plain = papers[0].plain
    assert [plain[a:b] for a, b in result.spans(plain)] == ["Trust-Region", "Policy", "Optimization"]


def test_exact_phrase(index):
    assert sorted(full(index, '"message passing"')) == [0, 7]
    assert full(index, '"passing message"') == []


def test_excluded_word_and_phrase(index):
    assert full(index, "diffusion -images") == [6]
    assert full(index, 'diffusion -"protein design"') == [5]


def test_an_excluded_common_word_excludes_the_papers_that_hold_it(index, papers):
    # stopwords are not indexed; before, excluding one excluded nothing
    assert full(index, "diffusion -the") == [6]
    assert full(index, "-the") == [0, 2, 3, 4, 6]
    assert 6 in full(index, "-with") and not {3, 4} & set(full(index, "-with"))  # "without" is another word
    assert full(index, "diffusion -the", annotations={papers[6].id: Note(note="see the appendix")}) == []


def test_title_field_matches_the_title_the_list_shows(index, papers):
    # Without title lines in the file, title: looks at the derived title, as shown in the list.
    assert papers[0].title == "Message passing on large graphs"
    assert full(index, "title:graph") == [0]
    assert full(index, "title:regret") == []
    assert full(index, "regret") == [2]
    assert sorted(full(index, 'title:"message passing"')) == [0, 7]
    assert full(index, 'title:"large graphs"') == [0]
    assert full(index, "title:representations") == []  # in the abstract, not in the title
    assert full(index, "diffusion -title:design") == [5]


def test_title_field_finds_a_name_the_abstract_introduces_late():
    texts = [
        "Large language models can be poisoned through their training data. We introduce PoisonBench, "
        "a benchmark for evaluating the susceptibility of language models to data poisoning.",
        "Benchmarks for data poisoning are rare. PoisonBench is mentioned here but this paper studies "
        "vision models and their robustness to label noise, which matters in practice.",
    ]
    papers = make(texts)
    assert papers[0].title.startswith("PoisonBench")
    assert not papers[1].title.startswith("PoisonBench")
    index = SearchIndex.build(papers)
    assert full(index, "title:poisonbench") == [0]
    assert full(index, "title:poisonbnech") == [0]  # a typo too
    assert sorted(full(index, "poisonbench")) == [0, 1]


def test_title_field_matches_a_word_form_only_the_derived_title_has():
    text = "We present RoboX, a planner that exploits the partial knowledge of the dynamics of robots."
    papers = make([text, "A survey of robots and planners."])
    assert "exploiting" in papers[0].title
    index = SearchIndex.build(papers)
    assert full(index, "title:exploiting") == [0]
    assert full(index, 'title:"exploiting the partial knowledge"') == [0]


def test_the_users_own_title_is_searched_and_replaces_the_shown_one(index, papers):
    @dataclass
    class Titled(Note):
        title: str | None = None

    notes = {papers[4].id: Titled(title="Coffee shop recommender (read for the lab meeting)")}
    assert full(index, "recommender lab", annotations=notes) == [4]
    assert full(index, "title:recommender", annotations=notes) == [4]
    assert full(index, 'title:"lab meeting"', annotations=notes) == [4]
    assert full(index, "title:cafe", annotations=notes) == []  # the derived title is no longer shown
    assert full(index, "title:cafe") == [4]
    assert full(index, "note:recommender", annotations=notes) == []


def test_id_prefix(index, papers):
    assert full(index, f"id:{papers[3].id[:6]}") == [3]


def test_annotation_filters_and_free_words_search_notes_and_tags(index, papers):
    notes = {
        papers[1].id: Note(starred=True, status="reading", tags=("nlp",)),
        papers[5].id: Note(status="read", note="compare with score distillation"),
        papers[6].id: Note(tags=("biology", "to-read")),
    }
    assert full(index, "is:starred", annotations=notes) == [1]
    assert full(index, "is:reading", annotations=notes) == [1]
    assert full(index, "is:read", annotations=notes) == [5]
    assert full(index, "is:noted", annotations=notes) == [5]
    assert full(index, "is:unread diffusion", annotations=notes) == [6]
    assert full(index, "-is:unread", annotations=notes) == [1, 5]
    assert full(index, "tag:biology", annotations=notes) == [6]
    assert full(index, "note:distillation", annotations=notes) == [5]
    assert full(index, "distillation", annotations=notes) == [5]  # free words search notes
    assert full(index, "biology", annotations=notes) == [6]  # and tags
    assert index.search("is:missing", annotations=notes).missing


@pytest.mark.parametrize("op", [op for op in OPERATORS if op.value not in ("missing", "all")], ids=lambda op: op.label)
def test_every_form_of_the_query_table_is_evaluated(index, papers, op):
    notes = {
        papers[1].id: Note(starred=True, status="reading", tags=("nlp",)),
        papers[5].id: Note(status="read", note="compare with score distillation"),
    }
    values = {"title": "graph", "note": "distillation", "tag": "nlp", "id": papers[3].id[:6]}
    values |= {"author": "lovelace", "year": "2019..2023", "venue": "icml", "cat": "cs"}
    typed = op.label if op.flag else op.label + values[op.field]
    kept, left_out = set(full(index, typed + " ", annotations=notes)), set(full(index, f"-{typed} ", annotations=notes))
    assert kept and left_out and not kept & left_out and kept | left_out == set(range(len(papers)))


def test_in_all_filters_nothing_out_of_the_papers_searched(index, papers):
    assert full(index, "in:all ") == list(range(len(papers)))  # it chooses the papers searched (every list's)
    assert full(index, "graph in:all ") == full(index, "graph ")


def test_author_names_are_searched_by_field_and_as_free_words(index):
    assert full(index, "author:lovelace ") == [0, 5]
    assert full(index, "author:godel ") == [0]  # accents aside
    assert full(index, "author:lovlace ") == [0, 5]  # a typo
    assert full(index, "author:hop") == [1]  # a prefix while typing
    assert full(index, "author:hop ") == []
    assert full(index, 'author:"ada lovelace"') == [0, 5]
    assert full(index, 'author:"lovelace ada"') == []
    assert full(index, "author:graph ") == []  # a word of the abstract is no name
    assert full(index, "diffusion -author:lovelace ") == [6]
    assert full(index, "lovelace ") == [0, 5]  # a name without the field finds the paper
    assert full(index, "lovelace diffusion ") == [5]
    assert full(index, '"kurt godel"') == [0]
    assert index.search("turing ").matched_terms(5) == ["turing"]


def test_the_names_rank_a_paper_as_a_word_of_its_abstract_would():
    texts = ["We study the Hopper environment in reinforcement learning.", "Bandits and regret bounds for control."]
    index = SearchIndex.build(make(texts, {1: Record(authors=("Grace Hopper",))}))
    assert sorted(full(index, "hopper ")) == [0, 1]
    assert all(score > 0 for score in index.search("hopper ").scores)


def test_year_field(index):
    assert full(index, "year:2023 ") == [1]
    assert sorted(full(index, "year:2021..2023 ")) == [1, 6]
    assert sorted(full(index, "year:2023.. ")) == [1, 5]
    assert full(index, "year:..2020 ") == [0]
    assert sorted(full(index, "-year:2019..2023 ")) == [2, 3, 4, 5, 7]  # papers without a year too
    assert "year:abc is not a year" in index.search("graph year:abc").error
    assert "ends before it starts" in index.search("year:2025..2020 graph").error


def test_venue_field(index):
    assert full(index, "venue:icml ") == [1]
    assert full(index, "venue:representation ") == [5]  # another form of the word
    assert full(index, 'venue:"neural information"') == [0]
    assert full(index, 'venue:"information neural"') == []
    assert full(index, "venue:conf") == [5]  # a prefix while typing
    assert full(index, "venue:conf ") == []
    assert sorted(full(index, "-venue:icml ")) == [0, 2, 3, 4, 5, 6, 7]


def test_category_field(index):
    assert full(index, "cat:cs.LG ") == [0]
    assert full(index, "cat:CS.lg ") == [0]
    assert sorted(full(index, "cat:cs ")) == [0, 1, 5]  # every cs.* category
    assert full(index, "cat:stat ") == [0]
    assert full(index, "cat:q-bio ") == [6]
    assert sorted(full(index, "cat:c")) == [0, 1, 5]  # a prefix while typing
    assert full(index, "cat:c ") == []
    assert sorted(full(index, "-cat:cs ")) == [2, 3, 4, 6, 7]


def test_errors_come_back_in_the_result(index):
    result = index.search('graph "neural')
    assert result.error == "unclosed quote" and not result.positions
    assert "unknown is:nope" in index.search("is:nope graph").error


def test_title_hits_rank_above_abstract_hits():
    papers = make(
        [
            "We evaluate many methods on benchmarks. Our main tool is a sparse autoencoder for features.",
            "Sparse autoencoders explain features. We evaluate them on many benchmarks.",
        ]
    )
    assert found(SearchIndex.build(papers), "autoencoder ") == [1, 0]


def test_exact_ranks_above_fuzzy():
    # "modal" is one letter from "model", but both are words: the paper with "modal" follows as a partial match
    papers = make(["A study of the modal logic of games.", "A study of the model logic of games."])
    result = SearchIndex.build(papers).search("model logic ")
    assert list(result.positions) == [1, 0] and result.full_matches == 1


def test_rarer_words_weigh_more():
    common = [f"Learning systems number {n}. Learning again." for n in range(8)]
    papers = make([*common, "Learning with quantum circuits.", "Quantum learning on circuits twice, quantum."])
    index = SearchIndex.build(papers)
    result = index.search("learning quantum ")
    assert list(result.positions[:2]) == [9, 8] and result.full_matches == 2


def test_ties_keep_file_order():
    papers = make([f"Identical wording about kernels, copy {n}." for n in range(5)])
    assert found(SearchIndex.build(papers), "kernels ") == [0, 1, 2, 3, 4]


def test_papers_missing_a_word_follow_the_full_matches(index):
    result = index.search("diffusion protein graph ")
    assert result.full_matches == 0
    assert list(result.positions[:1]) == [6]


def test_limit(index):
    result = index.search("diffusion ", limit=1)
    assert list(result.positions) == [5] and result.full_matches == 1


def test_spans_cover_words_prefixes_typos_and_phrases(index, papers):
    result = index.search('"message passing" grahps node')
    text = papers[0].plain
    marked = [text[a:b] for a, b in result.spans(text)]
    assert marked == ["Graph", "node", "message passing", "graphs"]
    prefix = index.search("diffusion gen")
    text = papers[6].plain
    assert [text[a:b] for a, b in prefix.spans(text)] == ["Diffusion", "generate"]
    latex = index.search("epsilon")
    assert [papers[2].plain[a:b] for a, b in latex.spans(papers[2].plain)] == ["ε"]


def test_matched_terms(index):
    result = index.search("grahp nodes")
    assert set(result.matched_terms(result.positions[0])) == {"graph", "node", "graphs"}


def test_word_forms_meet_and_the_typed_form_ranks_first():
    papers = make(
        [
            "An evaluation of retrieval systems on long documents.",
            "We evaluated retrieval systems twice on long documents.",
            "Evaluating retrieval systems on long documents.",
            "Retrieval systems at scale.",
        ]
    )
    index = SearchIndex.build(papers)
    result = index.search("evaluating retrieval ")
    assert result.full_matches == 3
    assert list(result.positions[:1]) == [2]
    assert sorted(result.positions[:3]) == [0, 1, 2]
    text = papers[1].plain
    assert [text[a:b] for a, b in result.spans(text)] == ["evaluated", "retrieval"]


def test_a_misspelt_word_matches_its_nearest_real_word():
    papers = make(["Retrieval augmented generation for code.", "Generation of code from retrieval logs."])
    index = SearchIndex.build(papers)
    assert sorted(full(index, "retreival generation ")) == [0, 1]


def test_a_rare_spelling_yields_to_a_common_near_word():
    common = [f"Approximation bounds for kernels, part {n}." for n in range(12)]
    papers = make([*common, "Approximatin of kernels (a typo in the abstract)."])
    index = SearchIndex.build(papers)
    assert index.search("approximatin kernels ").full_matches == 13


def test_compounds_joined_split_or_hyphenated():
    papers = make(
        [
            "Scheduling for multi-user networks.",
            "Multiuser detection in wireless channels.",
            "Self-supervised learning of speech.",
        ]
    )
    index = SearchIndex.build(papers)
    assert sorted(full(index, "multiuser ")) == [0, 1]
    assert sorted(full(index, "multi-user ")) == [0, 1]
    assert full(index, "selfsupervised ") == [2]
    result = index.search("multiuser ")
    text = papers[0].plain
    assert [text[a:b] for a, b in result.spans(text)] == ["multi-user"]


def test_title_words_stop_at_a_word_boundary():
    first = "Graph " + "neural " * 11 + "big networks for molecules."  # the title cut falls inside "networks"
    index = SearchIndex.build(make([first]))
    assert full(index, "title:graph ") == [0]
    assert full(index, "title:molecules ") == []
    assert full(index, "title:net ") == []  # no fragment of a cut word is a title word


def test_among_partial_matches_a_rare_word_outweighs_common_ones():
    common = [f"Learning a model of things, part {n}." for n in range(8)]
    index = SearchIndex.build(make([*common, "Quokka habitats on islands."]))
    result = index.search("learning model quokka ")
    assert result.full_matches == 0
    assert list(result.positions[:1]) == [8]


def test_a_near_form_of_a_missing_word_ranks_a_partial_match_higher():
    papers = make(
        [
            "Compilers for compilers, a survey of compilers.",  # 0: one word, often
            "The revision of compilers.",  # 1: one word, and a near form of the other
            "Revision history of prose.",  # 2: only a near form: no match
            "Revise the prose.",  # 3: the other word
            *[f"Unrelated text about gardens, part {n}." for n in range(6)],
        ]
    )
    result = SearchIndex.build(papers).search("revise compilers ")
    assert result.full_matches == 0
    positions = list(result.positions)
    assert positions.index(1) < positions.index(0)
    assert 2 not in positions  # it holds no query word, only a near form of one
    assert not result.spans(papers[1].plain[: len("The revision")])  # a near form is not highlighted as the word


def test_plural_es_forms_meet_their_singular_in_words_and_phrases():
    papers = make(
        [
            "We draw bounding boxes around objects and compare quantum approaches to search.",
            "A {G}enerative models survey of KV caches.",
        ]
    )
    index = SearchIndex.build(papers)
    assert full(index, "box") == [0]
    assert full(index, '"bounding box"') == [0]
    assert full(index, '"quantum approach"') == [0]
    assert full(index, '"generative models"') == [1]
    assert full(index, "cache") == [1]


@pytest.mark.parametrize(
    "titles", ["being derived", "every one derived", "read from the cache"], ids=lambda titles: f"titles {titles}"
)
def test_title_search_finds_the_same_papers_before_and_after_every_title_is_derived(titles, tmp_path):
    texts = [*ABSTRACTS, "We present RoboX, a planner that exploits the partial knowledge of robot dynamics."]
    papers = make(texts)
    if titles == "every one derived":
        _ = [paper.title for paper in papers]  # what the app does in the background
    elif titles == "read from the cache":
        assert title_cache.derive_all(tuple(make(texts)), tmp_path)
        papers = tuple(papers)
        assert title_cache.prime(papers, tmp_path)  # held as one block, no paper's own
        assert not any("title" in paper.__dict__ for paper in papers)
    index = SearchIndex.build(papers)
    assert (index.derived_titles() is not None) is (titles != "being derived")
    assert full(index, "title:graph") == [0]
    assert sorted(full(index, 'title:"message passing"')) == [0, 7]
    assert full(index, "title:representations") == []
    assert full(index, "diffusion -title:design") == [5]
    assert full(index, "title:exploiting") == [8]  # a form only the derived title holds
    assert full(index, 'title:"exploiting the partial"') == [8]
    assert full(index, "title:difusion") == [5, 6]  # a typo


@pytest.mark.parametrize("derived", [False, True], ids=["titles being derived", "every title derived"])
def test_title_search_in_a_file_where_only_some_papers_have_a_title_line(derived):
    texts = [
        "We study curvature rewiring for graph neural networks with bounds on over-squashing.",
        "Reasoning over tables is hard for language models. We introduce TableBench, a benchmark of table "
        "questions with verified answers.",
    ]
    papers = [
        Paper(id=paper_id(texts[0]), index=1, text=texts[0], given_title="Curvature Rewiring Against Over-Squashing"),
        Paper(id=paper_id(texts[1]), index=2, text=texts[1]),
    ]
    if derived:
        assert papers[1].title.startswith("TableBench: Benchmark of table")
    index = SearchIndex.build(papers)
    assert (index.derived_titles() is not None) is derived
    assert full(index, "title:rewiring") == [0]
    assert full(index, "title:graph") == []  # in the abstract, not in the title line
    assert full(index, "title:benchmark") == [1]
    assert full(index, 'title:"benchmark of table"') == [1]
    assert full(index, "title:hard") == []


def test_each_annotation_is_folded_once_however_many_keystrokes(papers, monkeypatch):
    from readlist.core.search import notes as search_notes

    index = SearchIndex.build(papers)
    notes = {paper.id: Note(note=f"reading group {n}") for n, paper in enumerate(papers)}
    folded = []
    real = search_notes.Annotated.of.__func__

    def counting(cls, annotation):
        folded.append(annotation)
        return real(cls, annotation)

    monkeypatch.setattr(search_notes.Annotated, "of", classmethod(counting))
    for query in ("r", "re", "rea", "reading", "reading gr"):
        assert full(index, query, annotations=dict(notes))  # a fresh dict of the same objects, as the store gives
    assert len(folded) == len(papers)
    notes[papers[2].id] = Note(note="changed")  # the store makes a new object for a changed annotation
    assert full(index, "changed", annotations=dict(notes)) == [2]
    assert len(folded) == len(papers) + 1


def test_a_title_search_deriving_titles_stops_when_its_caller_gives_up():
    import threading

    from readlist.core.search.index import BuildCancelled

    papers = make([f"We propose Model{n}, a method for graphs of size {n}. It works well." for n in range(200)])
    index = SearchIndex.build(papers)
    assert index.derived_titles() is None  # no title derived yet
    gave_up = threading.Event()
    gave_up.set()
    with pytest.raises(BuildCancelled):
        index.search("title:graphs", cancelled=gave_up)
    with pytest.raises(BuildCancelled):
        index.search('title:"method for graphs"', cancelled=gave_up)
    assert len(full(index, "title:graphs", cancelled=threading.Event())) == 200


def test_any_search_stops_when_its_caller_gives_up():
    # At 100k papers each word's scoring takes a tenth of a second: a search the next keystroke replaced stops
    # between them, and the newer one does not wait for it.
    import threading

    from readlist.core.search.index import BuildCancelled

    index = SearchIndex.build(make(ABSTRACTS))
    gave_up = threading.Event()
    gave_up.set()
    for query in ("graph", "diffusion models", "graph neur", '"message passing"', "is:starred", "year:2019"):
        with pytest.raises(BuildCancelled):
            index.search(query, cancelled=gave_up)
    assert full(index, "diffusion models", cancelled=threading.Event()) == [5, 6]


def test_a_word_inside_chinese_or_japanese_text_is_found_and_marked():
    papers = make(
        [
            "本文研究深度强化学习中的探索方法，提出一种新的内在奖励。",
            "我们提出一个化学反应预测模型。",
            "Graph networks 用于 分子设计。",
            "強化学習による探索の研究。",
        ]
    )
    index = SearchIndex.build(papers)
    assert full(index, "强化学习") == [0]  # inside a run of characters with no spaces
    assert sorted(full(index, "探索")) == [0, 3]  # Chinese and Japanese write it alike
    assert sorted(full(index, "化学")) == [0, 1, 3]
    assert full(index, '"强化学习"') == [0]
    assert full(index, '"学习 方法"') == []  # the phrase's words are not next to each other
    assert full(index, "分子 graph") == [2]
    assert full(index, "強化学習") == [3]
    assert full(index, "强化学") == [0]  # the last word, still being typed
    result = index.search("强化学习")
    text = papers[0].plain
    assert [text[a:b] for a, b in result.spans(text)] == ["强化学习"]
    notes = {papers[1].id: Note(note="中文笔记")}
    assert full(index, "笔记", annotations=notes) == [1]


def test_a_search_excluding_a_common_word_stops_when_its_caller_gives_up():
    # The texts are read for -the (seconds for 100,000 papers): a search the next keystroke replaced stops.
    import threading

    from readlist.core.search.index import BuildCancelled

    papers = make([f"We study the graphs of size {n}." if n % 2 else f"Graphs of size {n}." for n in range(200)])
    index = SearchIndex.build(papers)
    gave_up = threading.Event()
    gave_up.set()
    with pytest.raises(BuildCancelled):
        index.search("graphs -the", cancelled=gave_up)
    assert full(index, "graphs -the", cancelled=threading.Event()) == list(range(0, 200, 2))


@pytest.fixture
def scored(monkeypatch) -> list[list[str]]:
    """The variants of each word the searches score from now on (their terms, sorted), one list a word."""
    scored: list[list[str]] = []
    word_scores = SearchIndex.word_scores

    def counting(self, variants, *args, **kwargs):
        scored.append(sorted(self.data.terms[tid] for tid in variants))
        return word_scores(self, variants, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "word_scores", counting)
    return scored


def test_typing_on_scores_the_words_before_the_last_once(scored):
    # At 100k papers each word's scores take tens of milliseconds: the words typed before the one being typed are
    # scored for the first query holding them, and kept for the next, which ranks as a fresh index does.
    papers = make(ABSTRACTS)
    index = SearchIndex.build(papers)
    index.search("diffusion models g")
    scored.clear()
    typed_on = index.search("diffusion models ge")
    assert scored == [["generate"]]  # the last word's only
    fresh = SearchIndex.build(papers).search("diffusion models ge")
    assert (list(typed_on.positions), list(typed_on.scores)) == (list(fresh.positions), list(fresh.scores))
    assert typed_on.full_matches == fresh.full_matches == 2


def test_the_word_being_typed_never_drops_the_kept_scores_of_the_words_typed_before_it(monkeypatch, scored):
    # Three common words at 100k papers fill what is kept: each key's prefix ("m", "mo", "mod") dropped the words
    # before it, which were then scored again at every key (0.29 s of CPU for the last key of "large langauge models").
    from readlist.core.search import evaluate

    papers = make(ABSTRACTS)
    index = SearchIndex.build(papers)
    monkeypatch.setattr(evaluate, "WORD_SCORES_KEPT", 5)  # room for the two words typed (5 papers), no more
    index.search("diffusion models ")
    for typed in ("diffusion models g", "diffusion models ge", "diffusion models gen"):
        scored.clear()
        index.search(typed)
        last = typed.rsplit(" ", 1)[1]
        assert len(scored) == 1 and all(term.startswith(last) for term in scored[0]), typed  # the last word's only
    fresh = SearchIndex.build(papers).search("diffusion models gen")
    typed_on = index.search("diffusion models gen")
    assert (list(typed_on.positions), list(typed_on.scores)) == (list(fresh.positions), list(fresh.scores))


def test_a_search_typed_over_stops_once_its_papers_scores_are_summed(monkeypatch):
    # Summing and sorting the scores of 90k papers takes 30-80 ms, which the query typed next waited for.
    import threading

    from readlist.core.search import evaluate
    from readlist.core.search.index import BuildCancelled

    index = SearchIndex.build(make(ABSTRACTS))
    gave_up = threading.Event()
    summed = evaluate._summed

    def typed_over(keys, parts):
        gave_up.set()  # a newer query arrives as the scores are summed
        return summed(keys, parts)

    monkeypatch.setattr(evaluate, "_summed", typed_over)
    with pytest.raises(BuildCancelled):
        index.search("diffusion models", cancelled=gave_up)


def test_marks_alone_are_searched_by_their_marks_and_folded_to_one_shared_form(papers):
    # A whole list marked read is 100k annotations with nothing to fold: they share one searchable form each.
    from readlist.core.search import notes as search_notes

    index = SearchIndex.build(papers)
    marks = {paper.id: Note(status="read") for paper in papers}
    marks[papers[1].id] = Note(status="read", starred=True)
    marks[papers[2].id] = Note(status="read", note="reading group")
    forms = {id(search_notes.Annotated.of(mark)) for mark in marks.values()}
    assert len(forms) == 3  # read; read and starred; the noted one
    assert full(index, "is:read", annotations=marks) == list(range(len(papers)))
    assert full(index, "is:starred", annotations=marks) == [1]
    assert full(index, "group", annotations=marks) == [2]
    assert full(index, '"reading group"', annotations=marks) == [2]


def test_a_search_over_most_papers_holds_and_peaks_at_a_few_hundred_bytes_a_paper():
    # At 100k papers the app shows one result while the next query runs: a result that kept its words' sets (750
    # bytes a paper, with the set of every position the index held; 350 without) took 75 MB, its search peaking at
    # 965 bytes a paper. The ranking itself is checked by the tests above.
    import tracemalloc

    size = 20_000
    texts = [
        f"We model graphs {'and networks ' if n % 3 else ''}of size {n} with learning."
        if n % 2
        else f"Networks learn {n} graph states."
        for n in range(size)
    ]
    index = SearchIndex.build(make(texts))
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        result = index.search("graph networks learn")
        held, peak = (amount - start for amount in tracemalloc.get_traced_memory())
    finally:
        tracemalloc.stop()
    assert len(result.positions) == size and result.full_matches == 16_667
    assert held / size < 400  # the positions and their scores, and the words' scores kept for typing on
    assert peak / size < 700


def test_a_search_typed_over_stops_at_the_next_word_form_it_scores(monkeypatch):
    # A query typed over goes on in its thread until it looks at its `cancelled` event: at 100k papers a word's
    # forms ("m": hundreds of completions) take a tenth of a second, and two searches at once hold twice the memory.
    import threading

    from readlist.core.search.index import BuildCancelled

    index = SearchIndex.build(make(ABSTRACTS))
    gave_up = threading.Event()
    scored = []
    word_scores, idf = SearchIndex.word_scores, SearchIndex.idf

    def typed_over(self, *args, **kwargs):
        gave_up.set()  # a newer query arrives as this word is being scored
        return word_scores(self, *args, **kwargs)

    def counting(self, df):
        if gave_up.is_set():
            scored.append(df)
        return idf(self, df)

    monkeypatch.setattr(SearchIndex, "word_scores", typed_over)
    monkeypatch.setattr(SearchIndex, "idf", counting)
    with pytest.raises(BuildCancelled):
        index.search("g", cancelled=gave_up)
    assert scored == []
    gave_up.clear()
    monkeypatch.setattr(SearchIndex, "word_scores", word_scores)
    assert index.search("g", cancelled=gave_up).positions


def _many(size: int = 400) -> list[Paper]:
    """Papers sharing words in varied amounts: many ties in score, full matches and papers missing a word."""
    return make(
        [
            f"{'Graph ' * (1 + n % 4)}models of size {n}{' with neural networks' if n % 3 else ''}."
            + (" Networks learn." if n % 5 == 0 else "")
            for n in range(size)
        ]
    )


def test_a_ranking_orders_its_first_papers_when_answering_and_the_rest_when_read(monkeypatch):
    # Sorting 90k papers took 10-25 ms at each key typed, for rows seldom scrolled to: the first TOP are put in order
    # at once, the others when a row past them is read, in the same order a whole sort gives.
    from readlist.core.search import evaluate

    index = SearchIndex.build(_many())
    queries = ["graph networks", "graph neural net", "models", "networks learn", "graph -neural", "size 12"]
    whole = {query: index.search(query) for query in queries}  # TOP papers are more than any of them finds
    sorted_sizes = []
    in_order = evaluate._in_order

    def counting(docs, best):
        sorted_sizes.append(len(docs))
        return in_order(docs, best)

    monkeypatch.setattr(evaluate, "_in_order", counting)
    monkeypatch.setattr(evaluate, "TOP", 7)
    for query in queries:
        sorted_sizes.clear()
        result = index.search(query)
        expected = whole[query]
        assert result.full_matches == expected.full_matches and len(result.positions) == len(expected.positions)
        if len(expected.positions) == len(index.papers):  # (papers tied with the 7th are all sorted: "graph -neural")
            assert max(sorted_sizes) < len(expected.positions) / 2, query  # not every paper found, when answering
        assert result.positions[:7] == list(expected.positions[:7]) and result.positions[0] == expected.positions[0]
        assert result.positions[-1] == expected.positions[-1]  # the rest in order once read
        assert list(result.positions) == list(expected.positions), query
        assert list(result.scores) == list(expected.scores)
        cut = expected.full_matches
        assert result.positions[cut - 2 : cut + 3] == list(expected.positions)[cut - 2 : cut + 3]  # either side
        if cut < len(expected.positions):
            assert result.positions.index(expected.positions[cut]) == cut  # the first under the divider
        assert expected.positions[-1] in result.positions and len(index.papers) + 5 not in result.positions


def test_a_ranking_read_from_its_end_first_is_the_whole_sorts_order(monkeypatch):
    from readlist.core.search import evaluate

    index = SearchIndex.build(_many())
    expected = list(index.search("graph neural networks").positions)
    monkeypatch.setattr(evaluate, "TOP", 3)
    result = index.search("graph neural networks")
    assert [result.positions[-1], result.positions[-2]] == expected[-1:-3:-1]
    assert result.positions[::-1] == expected[::-1] and list(result.positions) == expected


def test_typing_on_expands_the_words_before_the_last_once(monkeypatch):
    # Finding a short word's typos among 100k papers' terms takes 4-8 ms: the words typed before the one being typed
    # are expanded for the first query holding them and kept for the next.
    from readlist.core.search.matching import WordMatcher

    papers = make(ABSTRACTS)
    index = SearchIndex.build(papers)
    expanded = []
    expand = WordMatcher.expand

    def counting(self, *args, **kwargs):
        expanded.append(self.word)
        return expand(self, *args, **kwargs)

    monkeypatch.setattr(WordMatcher, "expand", counting)
    index.search("diffusion models g")
    expanded.clear()
    typed_on = index.search("diffusion models ge")
    assert expanded == ["ge"]
    fresh = SearchIndex.build(papers).search("diffusion models ge")
    assert (list(typed_on.positions), list(typed_on.scores)) == (list(fresh.positions), list(fresh.scores))
    expanded.clear()
    index.search("diffusion model ge")  # a word changed: expanded anew
    assert expanded == ["model"]


def test_typing_on_scores_a_common_form_of_the_word_typed_once(monkeypatch):
    # "mode", "model" and "models" all score the papers holding "model" (90k at 100k papers, 20 ms), each at a weight
    # of its own (a completion of "mode", the word itself): its scores made at one key are kept for the next.
    from readlist.core.search import index as search_index

    papers = _many()
    index = SearchIndex.build(papers)
    monkeypatch.setattr(search_index, "KEPT_VARIANT", 50)  # a form held by 50 papers or more is common here
    made = []
    variant_scores = SearchIndex.variant_scores

    def counting(self, tid, *args, **kwargs):
        made.append(self.data.terms[tid])
        return variant_scores(self, tid, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "variant_scores", counting)
    index.search("graph mode")
    assert "model" in made  # a completion of "mode"
    for typed in ("graph model", "graph models"):
        made.clear()
        typed_on = index.search(typed)
        assert "model" not in made, typed  # kept from the key before
        fresh = SearchIndex.build(papers).search(typed)
        assert (list(typed_on.positions), list(typed_on.scores)) == (list(fresh.positions), list(fresh.scores))
        assert typed_on.full_matches == fresh.full_matches


def test_a_search_typed_over_stops_between_its_papers_sums(monkeypatch):
    # Summing 90k papers' scores took 35 ms in one call, which the query typed next waited for: they are summed a
    # slice at a time, the search stopping at the next slice once it was typed over.
    import threading

    from readlist.core.search import evaluate
    from readlist.core.search.index import BuildCancelled

    index = SearchIndex.build(_many())
    everything = len(index.search("graph networks").positions)
    monkeypatch.setattr(evaluate, "SUMMED_AT_ONCE", 10)
    gave_up = threading.Event()
    summed, slices = evaluate._summed, []

    def typed_over(keys, parts):
        slices.append(len(keys))
        gave_up.set()  # a newer query arrives as the first papers' scores are summed
        return summed(keys, parts)

    monkeypatch.setattr(evaluate, "_summed", typed_over)
    with pytest.raises(BuildCancelled):
        index.search("graph networks", cancelled=gave_up)
    assert sum(slices) == 10 < everything


def test_a_kept_forms_scores_are_made_a_slice_at_a_time_stopping_once_typed_over(monkeypatch):
    # Made in one call, 90k papers' kept scores held the interpreter 8-10 ms, which the query typed next waited for.
    import threading
    from array import array

    from readlist.core.search import index as search_index
    from readlist.core.search.index import BuildCancelled, Packed

    monkeypatch.setattr(search_index, "MADE_AT_ONCE", 10)
    packed = Packed(array("I", range(0, 200, 2)), array("d", (n / 7 for n in range(100))))
    expected = {doc: 3.0 * score for doc, score in zip(range(0, 200, 2), (n / 7 for n in range(100)), strict=True)}
    assert packed.scores(3.0, threading.Event()) == expected and list(packed.scores(3.0)) == list(expected)
    gave_up = threading.Event()
    gave_up.set()
    with pytest.raises(BuildCancelled):
        packed.scores(3.0, gave_up)


def test_the_papers_positions_by_id_are_made_only_once_a_search_reads_annotations(papers):
    # 8 MB at 100k papers, held for nothing by a list whose annotations hold no words.
    index = SearchIndex.build(papers)
    assert full(index, "diffusion") and full(index, "diffusion", annotations={})
    assert "position_of_id" not in vars(index)
    notes = {papers[5].id: Note(status="read", note="compare with score distillation")}
    assert full(index, "note:distillation", annotations=notes) == [5]
    assert index.position_of_id[papers[5].id] == 5


def test_an_index_holds_each_papers_length_norm_in_eight_bytes():
    # At 100k papers a list of floats held 3.2 MB (a pointer and a float object a paper) beside the 400 MB the app may
    # take; the search reads the norms the same (its rankings are checked by the tests above).
    import sys

    from readlist.core.search.index import K1, B
    from readlist.core.search.postings import build_data

    listed = make([f"Paper {n} about graphs{' and networks' * (n % 5)}." for n in range(5_000)])
    data = build_data(listed)
    index = SearchIndex(listed, data)
    average = sum(data.lengths) / len(data.lengths)
    assert list(index.norms) == [K1 * (1 - B + B * length / average) for length in data.lengths]
    assert index.norms.itemsize == 8 and sys.getsizeof(index.norms) < 8 * len(listed) + 100  # no float object each
