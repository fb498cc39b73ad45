"""A paper's links, best first, the web search setting, and its record as the detail pane and `show` describe it."""

from __future__ import annotations

from pathlib import Path

import pytest

from readlist.core.papers.describe import identifiers, short_authors, surname, title_origin_line, venue_and_year
from readlist.core.papers.formats import load_papers
from readlist.core.papers.links import (
    WEB_SEARCHES,
    LinkSettingError,
    best_link,
    doi_url,
    paper_links,
    web_search_template,
)
from readlist.core.papers.paper import Paper, Record

FIXTURES = Path(__file__).parent / "fixtures"
ABSTRACT = "We propose FastDiff, a sampler. It needs four steps. Code: https://github.com/x/fastdiff and more."


def paper(record: Record | None = None, text: str = ABSTRACT, title: str | None = None) -> Paper:
    return Paper(id="abc", index=1, text=text, given_title=title, record=record)


def test_links_come_best_first_each_once_and_end_with_a_web_search():
    record = Record(
        pdf_url="https://arxiv.org/pdf/2210.12590",
        url="http://arxiv.org/abs/2210.12590/",  # the arXiv page again, over http and with a slash
        doi="10.48550/arXiv.2210.12590",
        arxiv_id="2210.12590",
    )
    links = paper_links(paper(record), "Meta-RL for Buildings")
    assert [(link.label, link.url) for link in links] == [
        ("PDF", "https://arxiv.org/pdf/2210.12590"),
        ("arXiv abstract page", "http://arxiv.org/abs/2210.12590/"),  # named by what it is, from any field
        ("DOI", "https://doi.org/10.48550/arXiv.2210.12590"),
        ("Link in the abstract", "https://github.com/x/fastdiff"),
        ("Search arXiv for the title", "https://arxiv.org/search/?query=Meta-RL+for+Buildings&searchtype=all"),
    ]
    assert best_link(paper(record), "Meta-RL").url == "https://arxiv.org/pdf/2210.12590"


def test_without_a_pdf_the_best_link_is_the_next_in_order():
    assert best_link(paper(Record(arxiv_id="2305.15786", doi="10.1/x")), "T").url == "https://doi.org/10.1/x"
    assert best_link(paper(Record(arxiv_id="hep-th/9901001")), "T").url == "https://arxiv.org/abs/hep-th/9901001"
    assert best_link(paper(), "T").url == "https://github.com/x/fastdiff"


def test_a_paper_without_links_is_searched_for_on_the_web():
    bare = paper(text="Graph neural networks suffer from over-squashing; we rewire. Bounds follow.")
    link = best_link(bare, "Curvature Rewiring… & Over-Squashing")
    assert link.url == "https://arxiv.org/search/?query=Curvature+Rewiring+%26+Over-Squashing&searchtype=all"
    scholar = best_link(bare, "T", WEB_SEARCHES["scholar"])
    assert scholar.label == "Search Google Scholar for the first sentence"
    assert scholar.url == (
        "https://scholar.google.com/scholar?q=%22Graph+neural+networks+suffer+from+over-squashing%3B+we+rewire%22"
    )


def test_a_record_without_an_abstract_is_searched_for_by_its_title_in_either_search():
    bare = paper(Record(year=2020), text="", title="Attention Is All You Need")
    assert best_link(bare, bare.title, WEB_SEARCHES["scholar"]).url == (
        "https://scholar.google.com/scholar?q=%22Attention+Is+All+You+Need%22"
    )


def test_links_that_are_not_web_pages_are_left_out():
    record = Record(pdf_url="javascript:alert(1)", url="file:///etc/passwd", doi="https://doi.org/10.5/y")
    links = paper_links(paper(record, text="No links here."), "T")
    assert [link.url for link in links[:-1]] == ["https://doi.org/10.5/y"]
    assert doi_url("10.1000/a#b?c") == "https://doi.org/10.1000/a%23b%3Fc"


@pytest.mark.parametrize(
    ("value", "template"),
    [
        (None, WEB_SEARCHES["arxiv"]),
        ("scholar", WEB_SEARCHES["scholar"]),
        (" ArXiv ", WEB_SEARCHES["arxiv"]),
        ("https://duckduckgo.com/?q={title}", "https://duckduckgo.com/?q={title}"),
    ],
)
def test_the_web_search_setting_names_a_search_or_gives_a_template(value, template):
    assert web_search_template({} if value is None else {"READLIST_WEB_SEARCH": value}) == template


@pytest.mark.parametrize("value", ["", "google", "https://example.org/?q=paper", "ftp://x.org/{title}", "{title}"])
def test_a_web_search_setting_that_cannot_make_a_link_is_refused_in_one_line(value):
    with pytest.raises(LinkSettingError) as error:
        web_search_template({"READLIST_WEB_SEARCH": value})
    assert str(error.value).startswith("READLIST_WEB_SEARCH is ") and "\n" not in str(error.value)


def test_a_custom_template_fills_both_placeholders_url_encoded():
    link = best_link(paper(text="A b. C."), "Title & more", 'https://x.org/s?t={title}&s="{sentence}"')
    assert link.url == "https://x.org/s?t=Title+%26+more&s=%22A+b%22"
    assert link.label == "Web search for the title"


def test_authors_are_shortened_past_six_keeping_the_last():
    names = [f"Author {n}" for n in range(1, 10)]
    assert short_authors(names[:6]) == ", ".join(names[:6])
    assert short_authors(names) == "Author 1, Author 2, Author 3, Author 4, … Author 9"


@pytest.mark.parametrize(
    ("name", "family"),
    [("Jane Doe", "Doe"), ("Jan van der Berg", "van der Berg"), ("Sam Roe Jr.", "Roe"), ("Plato", "Plato"),
     ("De Gaulle", "Gaulle"), ("Wei Zhang", "Zhang")],
)  # fmt: skip
def test_surnames(name, family):
    assert surname(name) == family


def test_a_bibtex_record_described():
    first, second, third = load_papers(FIXTURES / "arxiv-3.bib").papers
    assert (venue_and_year(first), identifiers(first)) == (
        "CoRR 2022",
        "arXiv 2210.12590 · DOI 10.48550/arXiv.2210.12590",
    )
    assert venue_and_year(second) == "International Conference on Machine Learning 2023"
    assert venue_and_year(third) == "2023" and identifiers(third) == "DOI 10.48550/arXiv.2312.00326"
    assert venue_and_year(paper(Record(venue="ICML 2023", year=2023))) == "ICML 2023"


def test_where_the_title_comes_from():
    assert title_origin_line(paper()) == "title derived from the abstract"
    assert title_origin_line(paper(title="Given")) == "title from the file"
    assert title_origin_line(paper(title="Given"), own_title="Mine") == "your title"
    found = paper(Record(found_title="Found", found_by="arxiv+dblp"))
    assert title_origin_line(found) == "title found on arXiv (with DBLP)"
    assert title_origin_line(paper(Record(found_title="Found", found_by="s2"))) == "title found on Semantic Scholar"


def test_a_landing_page_is_named_by_what_it_is_whichever_field_gave_it():
    """The same arXiv page was "Landing page" from a BibTeX url and "arXiv abstract page" from an arXiv id."""
    from readlist.core.papers.links import source_links

    from_bibtex = source_links(paper(Record(url="https://arxiv.org/abs/2305.15786v2")))
    from_jsonl = source_links(paper(Record(arxiv_id="2305.15786v2")))
    assert from_bibtex[0].label == from_jsonl[0].label == "arXiv abstract page"
    assert source_links(paper(Record(url="https://doi.org/10.1/x")))[0].label == "DOI"
    assert source_links(paper(Record(url="https://openreview.net/forum?id=x")))[0].label == "Landing page"
