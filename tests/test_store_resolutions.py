"""What resolving found, kept in the database: saved, read back, caught up between processes, merged, shown over
the paper file's fields (never replacing them), and kept apart from the derived titles' cache."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from readlist.core.papers import title_cache
from readlist.core.papers.paper import PaperList, Record
from readlist.core.papers.reader import parse_text
from readlist.core.resolve.records import Match, Resolution, Status
from readlist.core.store.found import with_found
from readlist.core.store.merge_file import merge_database
from readlist.core.store.resolutions import merge_resolutions
from readlist.core.store.store import Store

TEXT = (
    "We study sparse attention for long documents and show that learned routing matches dense attention.\n\n"
    "A new benchmark for table question answering reveals that retrieval errors dominate model failures.\n\n"
    "Diffusion policies for robot grasping transfer from simulation when trained with randomised friction.\n"
)


@pytest.fixture
def papers() -> PaperList:
    return parse_text(TEXT)


def found(pid: str, title: str = "Routing Attention", at: str = "2026-12-01T10:00:00+00:00", **fields) -> Resolution:
    match = Match(title=title, source="arxiv+dblp", authors=("Ada Lovelace",), year=2025, venue="ICML",
                  arxiv_id="2501.00001", pdf_url="https://arxiv.org/pdf/2501.00001", **fields)  # fmt: skip
    return Resolution(pid, Status.FOUND, match=match, checked_at=at)


def missed(pid: str, at: str = "2026-12-01T10:00:00+00:00") -> Resolution:
    return Resolution(pid, Status.NOT_FOUND, checked_at=at)


def test_resolutions_are_saved_read_back_replaced_and_forgotten(tmp_path, papers):
    db = tmp_path / "readlist.json"
    first, second = (paper.id for paper in papers.papers[:2])
    store = Store(db)
    store.keep_resolutions([found(first), missed(second)])
    assert Store(db).resolutions() == {first: found(first), second: missed(second)}
    store.keep_resolutions([found(second, "Tables")])
    assert Store(db).resolutions()[second].match.title == "Tables"
    assert store.forget_resolution(first) == found(first)
    assert store.forget_resolution(first) is None
    assert list(Store(db).resolutions()) == [second]
    assert store.events() == []  # not logged, so undo never takes a lookup back
    assert store.undo() is None


def test_resolutions_are_read_again_only_when_they_change_not_on_every_annotation_change(tmp_path, papers):
    store = Store(tmp_path / "db.json")
    first, second = papers.papers[:2]
    store.keep_resolutions([found(first.id)])
    read = store.resolutions()
    store.toggle_star(second)  # the terminal UI asks for them each time the detail pane shows a paper
    assert store.resolutions() is read
    store.keep_resolutions([missed(second.id)])
    assert set(store.resolutions()) == {first.id, second.id}
    store.forget_resolution(second.id)
    assert set(store.resolutions()) == {first.id}
    Store(tmp_path / "db.json").keep_resolutions([missed(second.id)])  # another process
    assert store.reload_if_changed() and set(store.resolutions()) == {first.id, second.id}


def test_a_database_without_resolutions_keeps_its_layout(tmp_path, papers):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.toggle_star(papers.papers[0])
    assert set(json.loads(db.read_text())) == {"meta", "annotations", "events"}
    store.keep_resolutions([found(papers.papers[0].id)])
    assert "resolutions" in json.loads(db.read_text())
    store.forget_resolution(papers.papers[0].id)  # a note of when is kept, for merging
    assert [set(doc) for doc in json.loads(db.read_text())["resolutions"].values()] == [{"paper_id", "forgotten_at"}]


def test_resolutions_saved_by_two_processes_are_all_kept(tmp_path, papers):
    db = tmp_path / "readlist.json"
    one, other = Store(db), Store(db)  # two readlists open on one file
    one.keep_resolutions([found(papers.papers[0].id)])
    other.keep_resolutions([missed(papers.papers[1].id)])
    other.toggle_star(papers.papers[2])
    assert set(Store(db).resolutions()) == {papers.papers[0].id, papers.papers[1].id}
    assert one.reload_if_changed() and set(one.resolutions()) == set(Store(db).resolutions())


def test_a_resolution_that_does_not_read_back_is_ignored_and_replaced(tmp_path, papers):
    db = tmp_path / "readlist.json"
    pid = papers.papers[0].id
    Store(db).keep_resolutions([found(pid)])
    data = json.loads(db.read_text())
    data["resolutions"]["1"]["status"] = "maybe"
    db.write_text(json.dumps(data))
    store = Store(db)
    assert store.resolutions() == {} and store.notices == []
    store.keep_resolutions([missed(pid)])
    assert Store(db).resolutions() == {pid: missed(pid)}
    assert len(json.loads(db.read_text())["resolutions"]) == 1


def test_merge_resolutions_takes_the_one_checked_last():
    mine = {"a": missed("a", "2026-12-02T00:00:00+00:00"), "b": found("b", at="2026-11-01T00:00:00+00:00")}
    theirs = {"a": found("a", at="2026-12-01T00:00:00+00:00"), "b": missed("b", "2026-12-03T00:00:00+00:00")}
    theirs["c"] = found("c")
    merged, taken = merge_resolutions(mine, theirs)
    assert merged == {"a": mine["a"], "b": theirs["b"], "c": theirs["c"]} and taken == 2
    assert merge_resolutions(merged, theirs) == (merged, 0)  # merging again changes nothing


def test_merging_databases_carries_resolutions(tmp_path, papers):
    here, laptop = tmp_path / "here.json", tmp_path / "laptop.json"
    first, second = (paper.id for paper in papers.papers[:2])
    Store(here).keep_resolutions([missed(first, "2026-11-01T00:00:00+00:00")])
    Store(laptop).keep_resolutions([found(first, at="2026-12-01T00:00:00+00:00"), found(second, "Tables")])
    before = here.read_bytes()
    dry = merge_database(here, laptop, dry_run=True)
    assert dry.changed and dry.resolutions == 2 and here.read_bytes() == before
    assert dry.lines()[-1].endswith(", 2 paper(s) looked up online")
    report = merge_database(here, laptop)
    assert report.resolutions == 2
    assert Store(here).resolutions() == Store(laptop).resolutions()
    assert not merge_database(here, laptop).changed


def test_a_merge_keeps_the_resolutions_of_this_database(tmp_path, papers):
    here, laptop = tmp_path / "here.json", tmp_path / "laptop.json"
    pid = papers.papers[0].id
    Store(here).keep_resolutions([found(pid)])
    Store(laptop).toggle_star(papers.papers[1])
    merge_database(here, laptop)
    assert Store(here).resolutions() == {pid: found(pid)}


def test_found_fields_fill_only_what_the_file_left_empty(papers):
    first = papers.papers[0]
    given = replace(first, given_title="The file's title", record=Record(year=2024, doi="10.1/file"))
    listed = replace(papers, papers=(given, *papers.papers[1:]))
    shown = with_found(listed, {first.id: found(first.id, doi="10.1/found")})
    paper = shown.papers[0]
    assert (paper.title, paper.title_origin, paper.found_title, paper.found_by) == (
        "The file's title", "given", "Routing Attention", "arxiv+dblp"
    )  # fmt: skip
    assert (paper.year, paper.doi, paper.venue, paper.authors) == (2024, "10.1/file", "ICML", ("Ada Lovelace",))
    assert (paper.arxiv_id, paper.pdf_url) == ("2501.00001", "https://arxiv.org/pdf/2501.00001")
    assert shown.papers[1:] == listed.papers[1:] and shown.papers[1] is listed.papers[1]


def test_only_a_found_resolution_changes_a_paper(papers):
    first = papers.papers[0]
    assert with_found(papers, {}) is papers
    assert with_found(papers, {first.id: missed(first.id)}) is papers
    assert with_found(papers, {"0123456789ab": found("0123456789ab")}) is papers  # not in this list
    shown = with_found(papers, {first.id: found(first.id)}).papers[0]
    assert (shown.title, shown.title_origin) == ("Routing Attention", "found")


def test_the_derived_titles_cache_never_keeps_a_found_title(tmp_path, papers):
    first = papers.papers[0]
    shown = with_found(papers, {first.id: found(first.id)})
    assert title_cache.derive_all(shown.papers, tmp_path)
    again = parse_text(TEXT)  # the next run, after `resolve --forget`
    assert title_cache.prime(again.papers, tmp_path)
    assert again.papers[0].title != "Routing Attention"
    assert again.papers[0].title == parse_text(TEXT).papers[0].title
    fresh = with_found(parse_text(TEXT), {first.id: found(first.id)})
    assert title_cache.prime(fresh.papers, tmp_path) and fresh.papers[0].title == "Routing Attention"


def test_a_lookup_forgotten_here_does_not_come_back_from_a_copy_that_still_holds_it(tmp_path, papers):
    """Merging a copy made before `resolve --forget` brought the forgotten lookup back (no record of forgetting)."""
    here, laptop = tmp_path / "here.json", tmp_path / "laptop.json"
    pid = papers.papers[0].id
    Store(here).keep_resolutions([found(pid, at="2026-12-01T00:00:00+00:00")])
    laptop.write_bytes(here.read_bytes())
    later = Store(here, now=lambda: datetime(2026, 12, 2, tzinfo=UTC))
    assert later.forget_resolution(pid) == found(pid, at="2026-12-01T00:00:00+00:00")
    assert later.forget_resolution(pid) is None  # forgotten once
    merge_database(here, laptop)
    assert Store(here).resolutions() == {}
    merge_database(laptop, here)  # the other way, forgetting travels too
    assert Store(laptop).resolutions() == {}
    Store(laptop).keep_resolutions([found(pid, "Found Again", at="2026-12-03T00:00:00+00:00")])
    merge_database(here, laptop)  # a lookup made after forgetting wins
    assert Store(here).resolutions()[pid].match.title == "Found Again"
