"""The index's postings (search/postings.py): its build, in one process or in parts merged, held to a plain-code
definition of the index over generated papers like a large list's and hostile ones, and what makes them cheap."""

from __future__ import annotations

import itertools
import random
import re
import sys
from collections import Counter, defaultdict
from itertools import accumulate
from pathlib import Path

import pytest

from readlist.core.files.paths import bundled_papers
from readlist.core.papers.formats import load_papers
from readlist.core.papers.reader import read_papers
from readlist.core.search import postings
from readlist.core.search.postings import rows
from readlist.core.text.tokens import STOPWORDS, index_form, split_words, stem

FIXTURES = Path(__file__).parent / "fixtures"


# The index as defined, built the plain way, to hold the faster build and merge to: a paper's words counted by stem
# (stopwords out), its title's words (the file's title, else its first sentence's first words) and its authors' names'
# words as sets of stems.
_FIRST_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _first_sentence(text: str) -> str:
    head = _FIRST_SENTENCE.split(text[: postings.TITLE_CHARS * 3], maxsplit=1)[0]
    if len(head) > postings.TITLE_CHARS:
        head = head[: postings.TITLE_CHARS + 1]
        head = head if head[-1].isspace() else head.rsplit(None, 1)[0]
    return head


def _stems(text: str) -> list[str]:
    return [stem(word) for word in split_words(index_form(text)) if word not in STOPWORDS]


def _defined_index(table: list[postings.Row]) -> dict:
    body: dict[str, Counter] = defaultdict(Counter)
    title: dict[str, list[int]] = defaultdict(list)
    authors: dict[str, list[int]] = defaultdict(list)
    lengths = []
    for doc, (text, known_title, names) in enumerate(table):
        words = _stems(text)
        lengths.append(len(words))
        for term in words:
            body[term][doc] += 1
        for term in sorted(set(_stems(known_title or _first_sentence(text)))):
            title[term].append(doc)
        for term in sorted(set(_stems(" ".join(names)))):
            authors[term].append(doc)
    terms = sorted({*body, *title, *authors})
    index = {"terms": terms, "lengths": lengths}
    for kind, per_term in (("body", body), ("title", title), ("authors", authors)):
        docs = [list(per_term.get(term, ())) for term in terms]
        index[kind] = {"starts": [0, *accumulate(map(len, docs))], "docs": [doc for papers in docs for doc in papers]}
    index["body"]["tfs"] = [min(count, postings.MAX_TF) for term in terms for count in body[term].values()]
    return index


def _as_lists(data: postings.IndexData) -> dict:
    index = {"terms": list(data.terms), "lengths": list(data.lengths)}
    for kind in ("body", "title", "authors"):
        of = getattr(data, kind)
        index[kind] = {"starts": list(of.starts), "docs": list(of.docs)}
        assert (of.tfs is not None) == (kind == "body"), kind
    index["body"]["tfs"] = list(data.body.tfs)
    return index


def _generated(count: int) -> list[postings.Row]:
    """Papers like bench/corpus.py's: each abstract 4-9 sentences of the bundled list's abstracts, a first one first."""
    rng = random.Random(20250713)
    abstracts = [re.split(r"(?<=[.!?])\s+(?=[A-Z])", paper.text) for paper in read_papers(bundled_papers()).papers]
    openers, rest = [a[0] for a in abstracts], [sentence for a in abstracts for sentence in a[1:]]
    return [
        (" ".join([rng.choice(openers), *rng.sample(rest, rng.randint(3, 8))]) + f" (Ref {n}.)", None, ())
        for n in range(count)
    ]


_HOSTILE = [
    "",
    " ",
    "The of and a to in.",
    "a" * 88 + ". Next sentence here.",
    "a" * 89 + ". Next sentence here.",
    "a" * 90 + ". Next sentence here.",
    "a" * 89 + ".  Two spaces before it.",
    "a" * 88 + ".\n\tA line break and a tab.",
    "Hi." + " " * 88 + "\n  Spaces run past the title's room. Then more.",
    "Hi." + " " * 87 + "\tSpaces run to its edge. Then more.",
    "Hi." + " " * 300 + "Spaces run past 270 characters.",
    "Words end here.\u00a0No-break space. Ideographic\u3000Space. End.",
    "x" * 200 + " one chunk longer than the room.",
    "word-" * 40 + " hyphens without spaces.",
    "A long first sentence " + "that goes on and on " * 20 + "and ends. Second.",
    "e.g. lower case after a stop continues. Then Capitalised! Really? Yes.",
    "\\textbf{Deep} nets and {G}raph $\\epsilon$-greedy wit- nessed \\'{e}t\\'{e}. Networks of networks.",
    "α-divergence and ϵ bounds for β-VAEs. Schölkopf's kernels, naïve façade.",
    "强化学习是一种方法。Large language models translate 强化学习. 日本語のテキスト and 한국어.",
    "ＦＵＬＬ-width letters and ﬁ ligatures. Über Straße.",
    "Zorbs zorb the ZORB, a quux of the zorbs " + "zorb " * 300,
    "Blarg " * 70_000 + "once.",
    "Pre- and post-training both help; over- smoothing. Fine-tuning helps.",
]
_ROWS = [
    *[(text, None, ()) for text in _HOSTILE],
    (
        "An abstract about graphs.",
        "Networks of Network networks: the \\textbf{Graph} {G}iven",
        ("Jane Doe", "John Doe"),
    ),
    ("Another one.", "Ελληνικά: α-Divergence", ("Γιώργος Παπαδόπουλος", "José Álvarez", "Jane Doe")),
    ("", "A title only", ()),
    ("Names only.", None, ("The Of", "Bernhard Schölkopf")),
]


@pytest.fixture(scope="module")
def table() -> list[postings.Row]:
    tricky = rows(load_papers(FIXTURES / "tokens-tricky.jsonl").papers)
    generated = _generated(1500)
    return [*generated[:700], *_ROWS, *tricky, *generated[700:], *_ROWS[::-1]]


def test_an_index_built_whole_or_merged_from_parts_is_the_one_its_definition_gives(table):
    """Generated papers like a large list's, and hostile ones: LaTeX, Greek, CJK, accents, hyphen breaks, braces,
    known titles, authors, empty texts, long first sentences, sentences ending at the edge of the title's room, a word
    said 70,000 times."""
    defined = _defined_index(table)
    assert _as_lists(postings.build_rows(table)) == defined
    for text, _, _ in table:  # the same first words to the character, not only the same words
        assert postings._first_words(text) == _first_sentence(text), text
    for cuts in ([0, 1111], [0, 700, 720, 1500], [0, 1, 2, 3], [0, 3, 6, 9, 12]):  # the hostile papers alone in some
        bounds = [*cuts, len(table)]
        parts = [postings.build_rows(table[a:b], a, alone=True) for a, b in itertools.pairwise(bounds)]
        assert _as_lists(postings.merge(parts)) == defined, cuts


def test_an_index_built_a_block_of_terms_at_a_time_is_the_one_its_definition_gives(table, monkeypatch):
    """The words are put in order a block of terms at a time: blocks of a few words (a term said more than a block's
    words a block alone, terms said only in titles or names making blocks without words), and of 65,536 terms."""
    monkeypatch.setattr(postings, "BLOCK_WORDS", 300)
    assert _as_lists(postings.build_rows(table)) == _defined_index(table)
    monkeypatch.undo()
    many = [(" ".join(f"t{n}x{k}" for k in range(100)), f"t{n}x0 title", ("Jane Doe",)) for n in range(700)]
    data = postings.build_rows(many)
    assert len(data.terms) > 1 << 16 and _as_lists(data) == _defined_index(many)


def test_parts_without_terms_or_names_merge_into_the_index_of_one_build():
    table = [("", None, ()), ("Graph networks.", None, ("Jane Doe",)), (" ", None, ()), ("Graphs.", None, ())]
    for bounds in ([0, 1, 4], [0, 2, 3, 4], [0, 2, 4], [0, 1, 2, 3, 4]):
        parts = [postings.build_rows(table[a:b], a) for a, b in itertools.pairwise(bounds)]
        assert _as_lists(postings.merge(parts)) == _defined_index(table), bounds
    without_names = [(text, None, ()) for text, _, _ in table]
    parts = [postings.build_rows(without_names[:2]), postings.build_rows(without_names[2:], 2)]
    assert _as_lists(postings.merge(parts)) == _defined_index(without_names)


def _lines_run(call, *args, skipped=()):
    """What call(*args) returns, and how many lines of postings.py it ran (those of functions named in `skipped` not
    counted)."""
    lines = 0

    def tracer(frame, event, arg):
        nonlocal lines
        if frame.f_code.co_filename == postings.__file__ and frame.f_code.co_name not in skipped:
            lines += event == "line"
            return tracer
        return None

    sys.settrace(tracer)
    try:
        return call(*args), lines
    finally:
        sys.settrace(None)


def test_parts_are_merged_a_run_of_terms_at_a_time_in_c_level_steps_not_a_python_step_per_term():
    """Merging 100,000 papers' two parts stepped through each of their 120,000 terms in Python: 0.4 s of CPU, on the
    critical path of a new list's first search."""
    table = [(" ".join(f"w{part}x{n}y{k}" for k in range(50)), None, ()) for part in range(3) for n in range(40)]
    parts = [postings.build_rows(table[a : a + 40], a) for a in range(0, 120, 40)]  # 2,000 terms each, none shared
    merged, lines = _lines_run(postings.merge, parts)
    assert len(merged.terms) == 6000 and _as_lists(merged) == _defined_index(table)
    assert lines < 600  # a few per step of STEP items


def test_a_first_sentence_is_looked_for_within_the_titles_room():
    """The look-behind tried at each of the first 270 characters of every abstract was 4% of a large list's build: the
    sentence's end is scanned for in the title's room alone, unless spaces run past its edge."""
    normal = "A short first sentence. " + "Then a long second one that goes on. " * 10
    spaced = "Hi." + " " * 88 + "\n  Spaces run past the title's room. Then more."
    split = []

    class Recorded:
        def split(self, text, maxsplit):
            split.append(text)
            return _FIRST_SENTENCE.split(text, maxsplit=maxsplit)

    original = postings._SENTENCE
    postings._SENTENCE = Recorded()
    try:
        data = postings.build_rows([(normal, None, ()), (spaced, None, ())])
    finally:
        postings._SENTENCE = original
    assert split == [spaced[:270]]
    assert _as_lists(data) == _defined_index([(normal, None, ()), (spaced, None, ())])


def test_a_papers_title_and_names_reach_their_terms_without_a_set_made_for_each_paper(monkeypatch):
    """Each paper's title words were gathered in a set of term ids, then looked up again (a sixth of a build)."""
    table = [(text, None, ("Jane Doe", "John Doe")) for text in _HOSTILE[3:9]]
    monkeypatch.setattr(postings, "set", lambda *a: pytest.fail("a set made"), raising=False)
    assert _as_lists(postings.build_rows(table)) == _defined_index(table)


def test_a_terms_papers_are_grouped_and_counted_in_c_level_steps_not_a_python_step_per_term():
    """Each term's list of papers was counted (a Counter: 0.8 s of a worker's 3.6 s of CPU for 50,000 papers), and
    its title's and authors' repeats dropped, a Python step for each term: the papers' term ids are grouped by term
    in numpy, the Python steps a few per paper (and one per new word, making its term)."""
    words = [[f"w{n}y{k}" for k in range(50)] for n in range(40)]  # 2,000 terms, each said twice by its paper
    table = [(" ".join(said * 2), f"{said[0]} {said[0]} title", ("Jane Doe", "John Doe")) for said in words]
    data, lines = _lines_run(postings.build_rows, table, skipped=("made", "__missing__"))  # (once per new word)
    assert len(data.terms) == 2004 and _as_lists(data) == _defined_index(table)
    assert lines < 1500  # a few for each of 40 papers, and for each kind of postings
