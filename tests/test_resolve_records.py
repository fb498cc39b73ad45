"""What resolving keeps and decides without the network: records as JSON, settings, phrases, verification."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta

import pytest
from resolve_fakes import sample_papers, tokens

from readlist.core.resolve import THRESHOLD, Match, Resolution, Settings, SettingsError, Status
from readlist.core.resolve.phrases import distinctive_phrases
from readlist.core.resolve.similarity import abstract_score, same_title, share_an_author

PAPERS = {p["number"]: p for p in sample_papers()}
MATCH = Match(
    title="Mark My Words: Analyzing and Evaluating Language Model Watermarks",
    source="arxiv+dblp",
    record_url="https://arxiv.org/abs/2312.00273",
    authors=("Julien Piet", "Chawin Sitawarin"),
    year=2024,
    venue="SaTML",
    arxiv_id="2312.00273",
    doi="10.1109/SaTML59370.2024.00012",
    pdf_url="https://arxiv.org/pdf/2312.00273",
    categories=("cs.CR", "cs.LG"),
    score=0.98,
    verified=True,
)


def test_a_resolution_round_trips_through_json():
    near = dataclasses.replace(MATCH, arxiv_id="2401.00001", score=0.55, verified=False)
    resolution = Resolution("6735ec83587c", Status.FOUND, MATCH, (near,), ("dblp.org: HTTP 500",), requests=3)
    assert Resolution.from_dict(json.loads(json.dumps(resolution.to_dict()))) == resolution
    missed = Resolution("6735ec83587c", Status.NOT_FOUND)
    assert Resolution.from_dict(json.loads(json.dumps(missed.to_dict()))) == missed


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: d.update(status="lost"), "unknown resolution status 'lost'"),
        (lambda d: d.update(paper_id=5), "a text 'paper_id'"),
        (lambda d: d.update(match=None), "a match exactly when it is found"),
        (lambda d: d["match"].update(score=7), "'score' must be a number from 0 to 1"),
        (lambda d: d["match"].update(authors="Ada"), "'authors' must be a list of texts"),
        (lambda d: d["match"].update(year="2024"), "'year' must be a whole number"),
        (lambda d: d["match"].pop("title"), "a text 'title'"),
        (lambda d: d.update(candidates={}), "must be lists"),
        (lambda d: d.update(format=99), "format 99"),
    ],
)
def test_a_damaged_cached_resolution_is_refused_saying_what_is_wrong(damage, message):
    data = Resolution("6735ec83587c", Status.FOUND, MATCH).to_dict()
    damage(data)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Resolution.from_dict(data)


def test_accepting_a_candidate_makes_it_the_verified_match():
    first, second = (dataclasses.replace(MATCH, arxiv_id=i, score=0.6, verified=False) for i in ("1", "2"))
    possible = Resolution("p", Status.POSSIBLE, candidates=(first, second))
    accepted = possible.accept(2)
    assert accepted.status is Status.FOUND and accepted.match == dataclasses.replace(second, verified=True)
    assert accepted.candidates == (first,)
    with pytest.raises(IndexError):
        possible.accept(3)


def test_a_miss_is_asked_again_after_30_days_or_with_retry_a_failure_always_a_match_never():
    now = datetime(2026, 3, 1, tzinfo=UTC)
    checked = lambda days: (now - timedelta(days=days)).isoformat()  # noqa: E731
    assert not Resolution("p", Status.NOT_FOUND, checked_at=checked(29)).is_due(now)
    assert Resolution("p", Status.NOT_FOUND, checked_at=checked(29)).is_due(now, retry=True)
    assert Resolution("p", Status.POSSIBLE, checked_at=checked(30)).is_due(now)
    assert Resolution("p", Status.FAILED, checked_at=checked(0)).is_due(now)
    assert not Resolution("p", Status.FOUND, MATCH, checked_at=checked(400)).is_due(now, retry=True)


def test_settings_come_from_the_environment_by_their_exact_names():
    defaults = Settings.from_env({})
    assert defaults.arxiv_url == "https://export.arxiv.org/api/query"
    assert defaults.dblp_url == "https://dblp.org/search/publ/api"
    assert defaults.s2_url == "https://api.semanticscholar.org/graph/v1"
    assert defaults.openalex_url == "https://api.openalex.org"
    assert not defaults.enabled("openalex") and defaults.enabled("s2")
    env = {
        "READLIST_ARXIV_URL": "http://mirror.local/api/query",
        "READLIST_DBLP_URL": "http://mirror.local/dblp",
        "READLIST_S2_URL": "http://mirror.local/s2",
        "READLIST_OPENALEX_URL": "http://mirror.local/oa",
        "READLIST_S2_KEY": "k1",
        "READLIST_OPENALEX_KEY": "k2",
    }
    mirrored = Settings.from_env(env)
    assert [mirrored.base_url(s) for s in ("arxiv", "dblp", "s2", "openalex")] == list(env.values())[:4]
    assert (mirrored.s2_key, mirrored.openalex_key, mirrored.enabled("openalex")) == ("k1", "k2", True)
    assert not Settings.from_env(env, sources=("arxiv",)).enabled("openalex")


@pytest.mark.parametrize(
    "env, message",
    [
        ({"READLIST_ARXIV_URL": ""}, "READLIST_ARXIV_URL is set but empty"),
        ({"READLIST_DBLP_URL": "dblp.org"}, "READLIST_DBLP_URL is not an http(s) URL: 'dblp.org'"),
        ({"READLIST_S2_URL": "ftp://x"}, "READLIST_S2_URL is not an http(s) URL"),
        ({"READLIST_ARXIV_URL": "http://[::1/api"}, "READLIST_ARXIV_URL is not an http(s) URL"),
        ({"READLIST_ARXIV_URL": "http://mirror:port/api"}, "READLIST_ARXIV_URL is not an http(s) URL"),
        ({"READLIST_S2_KEY": "abc\ndef"}, "READLIST_S2_KEY holds spaces or control characters; it is not a key$"),
    ],
)
def test_a_url_setting_that_cannot_be_used_is_refused_not_replaced_by_the_default(env, message):
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Settings.from_env(env)


def test_an_unknown_source_is_refused():
    with pytest.raises(SettingsError, match="unknown source 'scholar': choose from arxiv, dblp, s2, openalex"):
        Settings.from_env({}, sources=("scholar",))


def test_phrases_are_plain_words_of_the_abstract_from_different_sentences():
    paper = PAPERS[1026]  # LaTeX in the abstract: $(L_0,L_1)$-smoothness
    phrases = distinctive_phrases(paper["abstract"])
    assert len(phrases) == 4
    assert all(3 <= len(p.split()) <= 4 and all(c.isalnum() or c in " -" for c in p) for p in phrases)
    assert all(p in paper["abstract"] for p in phrases)
    sentences = [s for s in paper["abstract"].split(". ")]
    first_two = [next(n for n, s in enumerate(sentences) if p in s) for p in phrases[:2]]
    assert first_two[0] != first_two[1]


def test_phrases_leave_out_latex_and_words_cut_at_a_line_break_as_the_service_holds_them():
    abstract = (
        "Parameter-efficient methods use low- rank de- composition of \\texttt{MA-SPL} weights. "
        "We bound $\\mathcal{O}(n^{2})$ regret with quirky mellifluous estimators. "
        "The {G}eneration of *emphasised* zygomorphic tensors demon- strate the hyperbolic cantilever gains."
    )
    phrases = distinctive_phrases(abstract)
    assert len(phrases) == 3
    assert not any(word in " ".join(phrases) for word in ("rank", "composition", "SPL", "strate", "mathcal"))
    raw = tokens(abstract)  # words as a search service reads the abstract as written
    assert all(any(raw[i : i + len(tokens(p))] == tokens(p) for i in range(len(raw))) for p in phrases)


def test_an_abstract_without_plain_words_gives_no_phrase():
    assert distinctive_phrases("$\\alpha + \\beta = \\gamma$ ∑ 1.5 (2.5)") == []


def test_the_threshold_parts_the_near_duplicates_of_the_sample_from_the_papers_themselves():
    for a, b in ((3923, 3910), (3716, 2417)):
        assert abstract_score(PAPERS[a]["abstract"], PAPERS[b]["abstract"]) < THRESHOLD - 0.1
    paper = PAPERS[1026]["abstract"]
    sentences = paper.split(". ")
    assert abstract_score(paper, ". ".join(sentences[:2] + sentences[3:])) >= THRESHOLD  # a sentence dropped
    unicode = paper.replace("$(L_0,L_1)$", "(L₀,L₁)").replace("  ", " ")
    assert abstract_score(paper, unicode.upper()) >= 0.97  # written otherwise, in capitals


def test_titles_match_exactly_once_latex_case_and_dblp_s_period_are_folded():
    assert same_title("$\\textit{New News}$: System-2 Fine-tuning", "New News: System-2 fine-tuning.")
    assert same_title("A Benchmark … in Competitive Pokémon", "A benchmark ... in competitive Pokemon")
    assert not same_title("Attention Is All You Need", "Attention Is Not All You Need")
    assert not same_title("", "")


def test_authors_are_compared_by_surname_dblp_numbers_left_out():
    assert share_an_author(("Wei Wang", "Ada Lovelace"), ("Wei Wang 0001",))
    assert share_an_author((), ("Anyone",))
    assert not share_an_author(("Wei Wang",), ("Ada Lovelace",))
