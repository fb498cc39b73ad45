"""Resolving papers against local stand-ins of arXiv, DBLP, Semantic Scholar and OpenAlex (never a real service)."""

from __future__ import annotations

import dataclasses
import json
import threading

import pytest
from resolve_fakes import (
    Answer,
    ArxivEntry,
    ArxivService,
    Services,
    atom_feed,
    dblp_json,
    openalex_work,
    s2_paper,
    sample_papers,
)

from readlist.core.resolve import PaperQuery, Resolution, Resolver, Status
from readlist.core.resolve.arxiv import arxiv_id

PAPERS = {p["number"]: p for p in sample_papers()}
DISTILL, REFLECTIVE = PAPERS[3923], PAPERS[3910]  # two abstracts by the same authors, sharing whole sentences


def query(paper: dict, title: str | None = None) -> PaperQuery:
    return PaperQuery(f"p{paper['number']}", paper["abstract"], title)


def entry(paper: dict, **fields) -> ArxivEntry:
    return ArxivEntry(paper["arxiv_id"], paper["title"], paper["abstract"], category=paper["category"], **fields)


def serve_feed(server, *entries: ArxivEntry) -> None:
    """The arXiv stand-in answers every search with these entries, in this order."""
    server.app = lambda request: Answer(body=atom_feed(entries), content_type="application/atom+xml")


@pytest.fixture
def services():
    with Services() as running:
        yield running


def test_a_found_paper_has_its_title_authors_ids_links_and_dblp_venue(services):
    paper = PAPERS[1]
    serve_feed(services.arxiv, entry(paper, authors=("Huiliang Zhang", "Di Wu"), doi="10.1/x"))
    dblp_hit = {"title": paper["title"], "authors": ["Huiliang Zhang 0002", "Di Wu"], "venue": "ICML", "year": 2025}
    services.dblp.app = lambda request: Answer(body=dblp_json([dict(dblp_hit, key="conf/icml/ZhangW25")]))
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(paper))
    match = resolution.match
    assert resolution.status is Status.FOUND and not resolution.problems
    assert match.title == paper["title"] and match.authors == ("Huiliang Zhang", "Di Wu")
    assert (match.arxiv_id, match.primary_category, match.categories) == (paper["arxiv_id"], "cs.AI", ("cs.AI",))
    assert match.pdf_url == f"http://arxiv.org/pdf/{paper['arxiv_id']}v2"
    assert match.url == match.record_url == f"http://arxiv.org/abs/{paper['arxiv_id']}v2"
    assert (match.venue, match.year, match.dblp_key, match.doi) == ("ICML", 2025, "conf/icml/ZhangW25", "10.1/x")
    assert (match.source, match.score, match.verified, match.published) == ("arxiv+dblp", 1.0, True, "2025-05-20")
    assert services.dblp.requests[0].params == {"q": paper["title"], "format": "json", "h": "10"}
    assert resolution.requests == 2


def test_arxiv_is_searched_by_two_quoted_phrases_of_the_abstract(services):
    with services.resolver() as resolver:
        resolver.resolve(query(PAPERS[1]))
    search = services.arxiv.requests[0]
    assert search.path == "/api/query" and search.params["max_results"] == "10"
    terms = search.params["search_query"].split(" AND ")
    assert len(terms) == 2 and all(t.startswith('abs:"') and t.endswith('"') for t in terms)
    assert all(t[5:-1] in PAPERS[1]["abstract"] for t in terms)


def test_a_paper_no_service_has_is_not_found(services):
    services.arxiv.app = ArxivService([])
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(PAPERS[2]))
    assert (resolution.status, resolution.match, resolution.candidates, resolution.problems) == (
        Status.NOT_FOUND,
        None,
        (),
        (),
    )
    assert len(services.arxiv.requests) == 2  # the two best phrases, then the next two
    assert len(services.s2.requests) == 1 and not services.dblp.requests and not services.openalex.requests


def test_a_near_duplicate_abstract_of_another_paper_is_not_applied(services):
    serve_feed(services.arxiv, entry(REFLECTIVE))
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(DISTILL))
    assert resolution.status is Status.POSSIBLE and resolution.match is None
    [candidate] = resolution.candidates
    assert candidate.arxiv_id == REFLECTIVE["arxiv_id"] and not candidate.verified
    assert 0.4 <= candidate.score < 0.7


def test_of_several_candidates_the_one_whose_abstract_matches_is_taken(services):
    others = [entry(PAPERS[n]) for n in (2, 3)]
    serve_feed(services.arxiv, others[0], entry(REFLECTIVE), entry(DISTILL), others[1])
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(DISTILL))
    assert resolution.status is Status.FOUND and resolution.match.arxiv_id == DISTILL["arxiv_id"]
    assert [c.arxiv_id for c in resolution.candidates] == [REFLECTIVE["arxiv_id"]]  # unrelated ones are not kept


def test_two_records_of_different_papers_matching_as_well_are_not_guessed_between(services):
    twin = ArxivEntry("2601.00001", "A resubmission under another title", PAPERS[1]["abstract"])
    serve_feed(services.arxiv, entry(PAPERS[1]), twin)
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(PAPERS[1]))
    assert resolution.status is Status.POSSIBLE
    assert {c.arxiv_id for c in resolution.candidates} == {PAPERS[1]["arxiv_id"], "2601.00001"}


def test_latex_and_unicode_in_titles_and_authors_come_out_as_plain_unicode(services):
    paper = PAPERS[119]  # $\textit{New News}$: System-2 Fine-tuning ...
    authors = ("Jürgen Schmidhuber", 'Kurt G\\"odel', "Zoë\n   Ullmann", "李 明")
    serve_feed(services.arxiv, entry(paper, authors=authors))
    dblp_title = "New News: System-2 Fine-tuning for Robust Integration of New Knowledge"
    services.dblp.app = lambda request: Answer(body=dblp_json([{"title": dblp_title, "authors": ["Kurt Gödel"]}]))
    with services.resolver() as resolver:
        match = resolver.resolve(query(paper)).match
    assert match.title == dblp_title
    assert match.authors == ("Jürgen Schmidhuber", "Kurt Gödel", "Zoë Ullmann", "李 明")
    assert match.venue == "ICML"  # DBLP's plain title is the same title as arXiv's LaTeX one


def test_dblp_gives_no_venue_for_another_title_an_arxiv_preprint_or_other_authors(services):
    paper = PAPERS[1]
    serve_feed(services.arxiv, entry(paper, authors=("Huiliang Zhang",)))
    hits = [
        {"title": paper["title"] + " Revisited", "authors": ["Huiliang Zhang"]},
        {"title": paper["title"], "authors": ["Huiliang Zhang"], "venue": "CoRR", "type": "Informal Publications"},
        {"title": paper["title"], "authors": ["Somebody Else"]},
    ]
    services.dblp.app = lambda request: Answer(body=dblp_json(hits))
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(paper))
    assert resolution.status is Status.FOUND and resolution.match.source == "arxiv"
    assert resolution.match.venue is None and resolution.match.dblp_key is None


def test_semantic_scholar_is_the_fallback_when_arxiv_has_no_match(services):
    paper = PAPERS[1881]
    services.arxiv.app = ArxivService([])
    found = s2_paper(paper["title"], paper["abstract"], paper["arxiv_id"], venue="NeurIPS")
    services.s2.app = lambda request: Answer(body=json.dumps({"total": 1, "offset": 0, "data": [found]}))
    with services.resolver(env={"READLIST_S2_KEY": "s2-secret"}) as resolver:
        resolution = resolver.resolve(query(paper))
    match = resolution.match
    assert resolution.status is Status.FOUND and (match.source, match.arxiv_id) == ("s2", paper["arxiv_id"])
    assert match.pdf_url == f"https://arxiv.org/pdf/{paper['arxiv_id']}" and match.venue == "NeurIPS"
    [search] = services.s2.requests
    assert search.path == "/graph/v1/paper/search" and search.headers["x-api-key"] == "s2-secret"
    assert search.params["fields"] == "title,abstract,authors,year,venue,externalIds,url,openAccessPdf"


def test_semantic_scholar_without_an_abstract_is_applied_only_on_the_exact_known_title(services):
    paper = PAPERS[2001]
    services.arxiv.app = ArxivService([])
    services.s2.app = lambda request: Answer(
        body=json.dumps({"data": [s2_paper(paper["title"], None, paper["arxiv_id"])]})
    )
    with services.resolver() as resolver:
        by_title = resolver.resolve(query(paper, title=paper["title"].upper()))
        other_title = resolver.resolve(query(paper, title="Crime data analysis with agents"))
    assert by_title.status is Status.FOUND and by_title.match.arxiv_id == paper["arxiv_id"]
    assert other_title.status is Status.NOT_FOUND
    assert [r.path for r in services.s2.requests] == ["/graph/v1/paper/search/match"] * 2
    assert services.s2.requests[0].params["query"] == paper["title"].upper()
    assert "x-api-key" not in services.s2.requests[0].headers


def test_semantic_scholar_404_title_match_not_found_is_a_miss(services):
    services.arxiv.app = ArxivService([])
    services.s2.app = lambda request: Answer(404, '{"error": "Title match not found"}')
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(PAPERS[2], title="No such title"))
    assert resolution.status is Status.NOT_FOUND and not resolution.problems


def test_openalex_is_asked_only_with_a_key_and_the_key_never_shows(services):
    paper = PAPERS[3001]
    services.arxiv.app = ArxivService([])
    work = openalex_work(paper["title"], paper["abstract"], paper["arxiv_id"])
    services.openalex.app = lambda request: Answer(body=json.dumps({"meta": {}, "results": [work]}))
    with services.resolver() as resolver:
        assert resolver.resolve(query(paper)).status is Status.NOT_FOUND
    assert not services.openalex.requests
    with services.resolver(env={"READLIST_OPENALEX_KEY": "oa-secret"}) as resolver:
        resolution = resolver.resolve(query(paper))
    assert resolution.status is Status.FOUND and resolution.match.source.startswith("openalex")
    assert (
        resolution.match.arxiv_id == paper["arxiv_id"] and resolution.match.doi == f"10.48550/arxiv.{paper['arxiv_id']}"
    )
    assert (
        services.openalex.requests[0].path == "/works"
        and services.openalex.requests[0].params["api_key"] == "oa-secret"
    )
    services.openalex.app = lambda request: Answer(500, "oops")
    with services.resolver(env={"READLIST_OPENALEX_KEY": "oa-secret"}, max_tries=1) as resolver:
        failed = resolver.resolve(query(paper))
    assert failed.status is Status.FAILED and failed.problems == (
        f"{services.openalex.host}: HTTP 500 Internal Server Error",
    )
    assert "oa-secret" not in json.dumps(failed.to_dict())


BAD_ANSWERS = {
    "malformed XML": (Answer(body=b"<feed><entry></feed>"), "malformed XML (mismatched tag: line 1, column 15)"),
    "cut-short XML": (Answer(body=atom_feed([ArxivEntry("1", "T", "S")])[:200]), "the XML answer is cut short"),
    "truncated body": (
        Answer(body=atom_feed([ArxivEntry("1", "T", "S")]), cut_at=100),
        "the connection closed before the answer was complete (4 tries)",
    ),
    "HTML error page": (
        Answer(body="<!DOCTYPE html><html><body>Service down</body></html>", content_type="text/html"),
        "an HTML page (HTTP 200), not an Atom feed",
    ),
    "DOCTYPE": (
        Answer(body=b'<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x "y">]><feed>&x;</feed>'),
        "XML with a DOCTYPE, refused (an Atom feed has none)",
    ),
    "not a feed": (Answer(body=b"<rss/>"), "XML that is not an Atom feed"),
    "empty": (Answer(body=b""), "an empty answer (HTTP 200), not an Atom feed"),
    "arXiv error entry": (
        Answer(
            body=atom_feed([ArxivEntry("x", "Error", "incorrect id format")]).replace(
                b"http://arxiv.org/abs/xv2</", b"http://arxiv.org/api/errors#incorrect_id_format</"
            )
        ),
        "arXiv says: incorrect id format",
    ),
}


@pytest.mark.parametrize("case", BAD_ANSWERS, ids=list(BAD_ANSWERS))
def test_an_answer_arxiv_cannot_have_given_fails_in_one_line_naming_the_host(services, case):
    answer, problem = BAD_ANSWERS[case]
    services.arxiv.app = lambda request: answer
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(PAPERS[1]))
    assert resolution.status is Status.FAILED and resolution.match is None
    assert resolution.problems[0].startswith(f"{services.arxiv.host}: {problem}")
    assert len(resolution.problems) == 1 and "\n" not in resolution.problems[0]


@pytest.mark.parametrize(
    "body",
    ['{"result": {"hits": ', '{"result": "nothing"}', "<html>Bad gateway</html>", '{"result": {"hits": {"hit": 5}}}'],
)
def test_a_bad_dblp_answer_keeps_the_arxiv_match_and_says_why_no_venue(services, body):
    services.dblp.app = lambda request: Answer(body=body)
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(PAPERS[1]))
    assert resolution.status is Status.FOUND and resolution.match.venue is None
    [problem] = resolution.problems
    assert problem.startswith(f"{services.dblp.host}: ")


@pytest.mark.parametrize(
    "body",
    [
        '{"data": [',
        '{"data": {"title": 1}}',
        "[1, 2]",
        '{"data": [{"title": null}, 7]}',
        '{"data": [{"title": "x", "externalIds": [1], "authors": "x"}]}',
    ],
)
def test_a_bad_semantic_scholar_answer_is_a_failure_or_nothing_never_an_exception(services, body):
    services.arxiv.app = ArxivService([])
    services.s2.app = lambda request: Answer(body=body)
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(PAPERS[2]))
    assert resolution.status in (Status.FAILED, Status.NOT_FOUND)
    assert all(p.startswith(f"{services.s2.host}: ") for p in resolution.problems)


def test_a_failed_arxiv_is_a_failure_not_a_miss_even_when_the_fallback_finds_nothing(services):
    services.arxiv.app = lambda request: Answer(502, "bad gateway", content_type="text/plain")
    with services.resolver(max_tries=2) as resolver:
        resolution = resolver.resolve(query(PAPERS[1]))
    assert resolution.status is Status.FAILED
    assert resolution.problems == (f"{services.arxiv.host}: HTTP 502 Bad Gateway (2 tries)",)


def test_a_url_setting_made_without_its_checks_fails_in_a_line_rather_than_raising(services):
    settings = dataclasses.replace(services.settings(), arxiv_url="http://[::1/api")
    with Resolver(settings, clock=services.clock) as resolver:
        resolution = resolver.resolve(query(PAPERS[1]))
    assert resolution.status is Status.FAILED
    assert resolution.problems[0].startswith("arxiv: cannot use the URL 'http://[::1/api'")


def test_cancelling_stops_between_papers_and_keeps_what_was_resolved(services):
    cancel = threading.Event()
    services.clock.on_sleep = lambda seconds: cancel.set()  # the pacing wait before the second arXiv request
    papers = [query(PAPERS[n]) for n in (1, 2, 3)]
    services.dblp.app = lambda request: Answer(body=dblp_json([]))
    with services.resolver(cancel=cancel, sources=("arxiv",)) as resolver:
        done = list(resolver.resolve_many(papers))
    assert [r.paper_id for r in done] == ["p1"] and done[0].status is Status.FOUND
    assert len(services.arxiv.requests) == 1


def test_a_resolution_goes_through_json_and_back_unchanged(services):
    serve_feed(services.arxiv, entry(REFLECTIVE), entry(DISTILL, journal_ref="ACL 2025"))
    with services.resolver() as resolver:
        resolution = resolver.resolve(query(DISTILL))
    assert resolution.candidates and resolution.match.journal_ref == "ACL 2025"
    assert Resolution.from_dict(json.loads(json.dumps(resolution.to_dict()))) == resolution


@pytest.mark.parametrize(
    "url, expected",
    [
        ("http://arxiv.org/abs/2210.12590v2", "2210.12590"),
        ("https://arxiv.org/abs/hep-ex/0307015v1", "hep-ex/0307015"),
        ("http://arxiv.org/abs/cs/9901002", "cs/9901002"),
        ("http://arxiv.org/api/errors#x", None),
    ],
)
def test_arxiv_ids_are_read_from_the_entry_id_without_their_version(url, expected):
    assert arxiv_id(url) == expected
