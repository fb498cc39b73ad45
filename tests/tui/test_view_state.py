"""The main screen's view state, driven without the app: queries, results, where the cursor goes, jumps."""

from __future__ import annotations

import pytest

from readlist.core.papers.formats import load_papers
from readlist.core.papers.paper import PaperList
from readlist.core.papers.reader import parse_text
from readlist.core.search.index import SearchIndex
from readlist.core.store.annotation import Annotation
from readlist.tui.screens.view_state import FILTERS, HISTORY, ViewState

from .conftest import PAPERS


@pytest.fixture(scope="module")
def papers():
    return parse_text(PAPERS, "/tmp/papers.txt")


@pytest.fixture(scope="module")
def index(papers):
    return SearchIndex.build(papers.papers)


def searched(view: ViewState, index, text: str) -> ViewState:
    """The view after the screen typed `text` in the search bar and its search answered."""
    view.set_search(text)
    assert view.take(view.query, index.search(view.query, {}))
    return view


def test_without_a_query_every_paper_is_listed_and_nothing_matched(papers):
    view = ViewState(papers)
    assert view.query == "" and view.positions == range(len(papers.papers))
    assert view.matches is None and view.partial == 0 and view.spans is None and view.error is None
    assert list(view.matching()) == list(range(len(papers.papers)))


def test_the_quick_filter_is_part_of_the_query_and_cycles(papers):
    assert ViewState(papers, "starred").query == "is:starred"
    assert ViewState(papers, "bogus").quick_filter == "all"  # a state file's unknown filter
    view = ViewState(papers, "read")
    view.set_search("gnn")
    assert view.query == "gnn is:read"
    assert [view.next_filter() for _ in FILTERS] == ["starred", "all", "unread", "reading", "read"]


def test_a_result_for_an_older_query_is_not_taken(papers, index):
    view = ViewState(papers)
    view.set_search("graph")
    assert not view.take("grap", index.search("grap", {}))
    assert view.result is None and view.positions == range(len(papers.papers))


def test_partial_matches_are_listed_but_not_matching(papers, index):
    view = searched(ViewState(papers), index, "tables language")
    assert list(view.positions) == [3, 2] and view.full_matches == 1
    assert view.matches == 1 and view.partial == 1
    assert list(view.matching()) == [3]  # what R marks read and x exports
    assert view.spans is not None and view.spans(papers.papers[3].plain)


def test_a_filter_alone_highlights_nothing(papers, index):
    view = ViewState(papers, "unread")
    assert view.take(view.query, index.search(view.query, {}))
    assert view.matches == len(papers.papers) and view.spans is None


def test_new_search_words_start_at_the_best_match_and_the_same_words_keep_the_paper(papers, index):
    view = searched(ViewState(papers), index, "language")
    assert view.placement(current=2) == (None, 0)  # new words: the best match, on the first row
    view.take(view.query, index.search(view.query, {}))  # the same words searched again (a note changed)
    assert view.placement(current=2) == (2, 0)


def test_the_paper_asked_for_is_selected_once(papers):
    wanted = papers.papers[3]
    view = ViewState(papers, paper_id=wanted.id)  # the paper selected when readlist last quit
    assert view.placement(current=0) == (3, 0)
    assert view.placement(current=0) == (0, 0)
    gone = ViewState(papers, paper_id="no-such-paper")
    assert gone.placement(current=1) == (1, 0)


def test_the_row_kept_after_an_edit_is_used_once(papers):
    view = ViewState(papers)
    view.stay_row = 4
    assert view.placement(current=None) == (None, 4)
    assert view.placement(current=None) == (None, 0)


def test_a_jump_clears_the_view_and_back_brings_it_and_its_paper_again(papers):
    view = ViewState(papers, "starred")
    view.set_search("gnn")
    before, target = papers.papers[1], papers.papers[4]
    left = view.jump(target, before)
    assert left.describe() == "Search 'gnn' and the starred filter"
    assert (view.search_text, view.quick_filter, view.pending_select) == ("", "all", target.id)
    assert view.back()
    assert (view.search_text, view.quick_filter, view.pending_select) == ("gnn", "starred", before.id)
    assert not view.back()


def test_a_view_of_ones_own_after_a_jump_forgets_the_view_before(papers):
    view = ViewState(papers)
    view.jump(papers.papers[2], None)
    assert not view.set_search("")  # the search bar saying what the jump set: no change of one's own
    assert view.before_jump is not None
    assert view.set_search("x") and view.before_jump is None
    view.jump(papers.papers[2], None)
    view.next_filter()
    assert not view.back()


def test_what_an_empty_view_says(papers, index):
    nothing = PaperList(path="/tmp/none.txt", name="none.txt", papers=())
    assert ViewState(nothing).empty_message().startswith("No papers in /tmp/none.txt")
    view = searched(ViewState(papers, "read"), index, "zebra")
    assert view.empty_message() == "No read papers match 'zebra' — Esc clears the search, f changes the filter"
    missing = searched(ViewState(papers), index, "is:missing")
    assert missing.showing_missing and missing.empty_message().startswith("Annotations of papers no longer")


def test_the_status_line_says_the_search_waits_for_the_index(papers):
    view = ViewState(papers, "unread")
    assert view.status_note(indexed=False) == "indexing…"
    assert view.status_note(indexed=True) == "searching…"
    assert ViewState(papers).status_note(indexed=False) == ""


def test_a_search_is_pending_until_the_result_of_its_words_is_taken(papers, index):
    view = searched(ViewState(papers), index, "graph")
    assert not view.pending and view.status_note(indexed=True) == ""
    view.set_search("graph neural")  # typed on: the result listed is the older words'
    assert view.pending and view.status_note(indexed=True) == "searching…"
    searched(view, index, "graph neural")
    assert not view.pending
    searched(view, index, "year:abc")  # an error is said once its own words answered
    assert view.status_note(indexed=True).startswith("⚠")
    view.set_search("year:abcd")
    assert view.status_note(indexed=True) == "searching…"


def test_marks_are_kept_across_searches_and_given_in_the_files_order(papers, index):
    view = ViewState(papers)
    third, first = papers.papers[2], papers.papers[0]
    assert view.toggle_mark(third) and view.toggle_mark(first)
    searched(view, index, "tables")
    assert [paper.index for paper in view.marked_papers()] == [1, 3]
    assert not view.toggle_mark(third) and list(view.marked) == [first.id]
    assert view.mark(papers.papers[pos] for pos in view.matching()) == 1  # the one match, not marked yet
    assert view.mark(papers.papers[:1]) == 0
    assert view.clear_marks() == 2 and view.marked_papers() == []


def notes_of(papers, **by_index):
    """Annotations by paper id, given as index=(status, starred, updated)."""
    return {
        papers.papers[int(key[1:]) - 1].id: Annotation(
            papers.papers[int(key[1:]) - 1].id, status=status, starred=starred, updated=updated
        )
        for key, (status, starred, updated) in by_index.items()
    }


def test_sort_orders_cycle_among_those_offered_and_list_the_papers_so(papers, index):
    view = ViewState(papers)
    notes = notes_of(
        papers, p2=("read", False, "2025-01-02T00:00:00Z"), p4=("reading", True, "2025-01-03T00:00:00Z"),
        p5=("unread", True, "2025-01-01T00:00:00Z"),
    )  # fmt: skip
    assert view.order == "file" and view.sort_label() == ""  # the default: relevance, the file's order unsearched
    assert not view.has_years and "year" not in view.sorts() and "relevance" not in view.sorts()
    listed = {}
    for _ in view.sorts():
        order = view.next_sort()
        view.arrange(lambda: notes)
        listed[order] = list(view.positions)
    assert listed == {
        "status": [3, 0, 2, 4, 1],  # reading, unread, read; ties in the file's order
        "starred": [3, 4, 0, 1, 2],
        "changed": [3, 1, 4, 0, 2],  # the latest change first, papers never changed last
        "file": [0, 1, 2, 3, 4],
    }
    view.sort = "starred"
    assert view.sort_label() == "starred first"


def test_sort_cycled_back_round_to_file_order_leaves_a_later_search_ranked(papers, index):
    view = ViewState(papers)
    while view.next_sort() != "file":  # every order offered unsearched, then the file's again
        pass
    assert view.sort_label() == ""
    searched(view, index, "tables language")
    assert view.order == "relevance" and view.sort_label() == ""  # not "file order": the search ranks its papers


def test_a_search_sorted_keeps_its_full_matches_above_the_papers_missing_a_word(papers, index):
    view = searched(ViewState(papers, sort="file"), index, "tables language")
    view.arrange(dict)
    assert list(view.positions) == [3, 2] and view.full_matches == 1  # not [2, 3]: #3 misses a word
    assert view.sort_label() == "file order"
    assert view.next_sort() == "relevance" and view.sort_label() == ""
    view.set_search("")
    assert view.order == "file" and "relevance" not in view.sorts()  # offered only while searching
    assert ViewState(papers, sort="bogus").sort == "relevance"  # a state file's unknown order


def test_year_is_offered_when_the_papers_have_years_newest_first(tmp_path):
    table = tmp_path / "papers.csv"
    table.write_text(
        "title,abstract,year\nOne,Abstract one about graphs.,2021\nTwo,Abstract two about tables.,\n"
        "Three,Abstract three about robots.,2024\n"
    )
    view = ViewState(load_papers(table), sort="year")
    assert "year" in view.sorts() and view.order == "year" and view.sort_label() == "year"
    view.arrange(dict)
    assert list(view.positions) == [2, 0, 1]  # those without a year last


def test_an_edit_keeps_the_cursors_row_when_the_order_moves_the_paper(papers):
    view = ViewState(papers, sort="status")
    view.edited(2)
    assert view.placement(current=2) == (None, 2)  # the next paper comes up on the row
    view.sort = "relevance"
    view.edited(2)
    assert view.placement(current=2) == (2, 2)  # the same paper, as after any edit


def test_going_back_walks_the_jumps_history_newest_first_kept_to_its_length(papers):
    view = ViewState(papers, "unread")
    view.set_search("gnn")
    first, second, third = papers.papers[:3]
    view.jump(second, first)  # from a search and filter on the first paper
    view.went_from(second)  # then to a paper in the view
    assert view.go_back().paper is second and (view.search_text, view.quick_filter) == ("", "all")
    assert view.go_back().paper is first
    assert (view.search_text, view.quick_filter, view.pending_select) == ("gnn", "unread", first.id)
    assert view.go_back() is None
    view.jump(third, first)
    assert view.back() and view.go_back() is None  # Esc went back: backspace has no step left
    for _ in range(HISTORY + 5):
        view.went_from(first)
    assert len(view.history) == HISTORY


def test_an_empty_view_names_a_field_the_paper_file_never_gives(papers, index):
    view = searched(ViewState(papers), index, "year:2024")
    assert view.empty_message() == "No papers match 'year:2024': the paper file gives no years — Esc clears the search"
    view = searched(ViewState(papers), index, "-author:doe zebra")  # a field ruled out is no reason
    assert view.empty_message() == "No papers match '-author:doe zebra' — Esc clears the search"
