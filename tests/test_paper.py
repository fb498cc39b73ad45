"""The paper model: a source's record read through the paper, absent fields empty, and what caches key on."""

from __future__ import annotations

from dataclasses import replace

from readlist.core.papers import title_cache
from readlist.core.papers.paper import Paper, Record
from readlist.core.search.cache import content_key
from readlist.core.text.normalize import paper_id

ABSTRACT = "We distil a diffusion sampler into four steps."


def test_record_fields_read_through_the_paper_and_absent_ones_stay_empty():
    bare = Paper(id=paper_id(ABSTRACT), index=1, text=ABSTRACT)
    assert (bare.authors, bare.year, bare.doi, bare.categories) == ((), None, None, ())
    assert bare.to_dict().keys() == {"id", "index", "title", "text", "plain", "urls"}
    full = replace(bare, given_title="FastDiff", record=Record(authors=("Jane Doe",), year=2024, doi="10.1145/1"))
    assert (full.authors, full.year, full.doi, full.venue) == (("Jane Doe",), 2024, "10.1145/1", None)
    assert full.title == "FastDiff"
    shown = full.to_dict()
    assert (shown["given_title"], shown["authors"], shown["year"]) == ("FastDiff", ["Jane Doe"], 2024)
    assert "venue" not in shown and "pdf_url" not in shown


def test_a_given_title_is_part_of_the_cache_keys_though_not_of_the_id():
    papers = (Paper(id=paper_id(ABSTRACT), index=1, text=ABSTRACT),)
    one = (replace(papers[0], given_title="One title"),)
    other = (replace(papers[0], given_title="Another title"),)
    assert len({content_key(papers), content_key(one), content_key(other)}) == 3  # the search index's words
    assert title_cache.content_key(one) != title_cache.content_key(other)


def test_a_title_found_online_is_shown_unless_the_file_gives_one():
    from readlist.core.papers.paper import Paper, Record

    text = "We propose a method for sparse attention that halves memory use."
    found = Record(found_title="Sparse Attention Halves Memory", found_by="arxiv")
    derived = Paper(id="a" * 12, index=0, text=text)
    resolved = Paper(id="a" * 12, index=0, text=text, record=found)
    titled = Paper(id="a" * 12, index=0, text=text, given_title="The File's Title", record=found)
    assert derived.title_origin == "derived"
    assert (resolved.title, resolved.title_origin, resolved.found_by) == (
        "Sparse Attention Halves Memory",
        "found",
        "arxiv",
    )
    assert (titled.title, titled.title_origin) == ("The File's Title", "given")
