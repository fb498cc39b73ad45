"""Merging two databases: newer field wins, both notes kept on conflict, events united,
idempotent and symmetric (checked on random edit histories)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from readlist.core.store.annotation import Annotation, Event
from readlist.core.store.merge import CONFLICT_TAG, NOTE_SEPARATOR, merge, note_parts
from readlist.core.store.note_edits import digest, edit_of

T0 = datetime(2025, 7, 1, tzinfo=UTC)
P, Q = "a1b2c3d4e5f6", "0123456789ab"


def at(seconds: int) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


class Copy:
    """One copy of the database: annotations plus the change log, edited like the store does (logging a note's
    change as a note edit, or with `whole_notes` the whole note before and after, as earlier versions did)."""

    def __init__(self, annotations=None, events=(), whole_notes: bool = True):
        self.annotations = dict(annotations or {})
        self.events = list(events)
        self.whole_notes = whole_notes

    def clone(self, whole_notes: bool | None = None) -> Copy:
        return Copy(self.annotations, self.events, self.whole_notes if whole_notes is None else whole_notes)

    def edit(self, paper: str, t: int, **changes):
        old = self.annotations.get(paper) or Annotation(paper, created=at(t))
        before = {k: getattr(old, k) for k in changes}
        new = replace(old, **changes, updated=at(t))
        self.annotations[paper] = new
        action = "status" if set(changes) == {"status"} else "update"
        after, note_edit = dict(changes), {}
        if not self.whole_notes and "note" in changes:
            note_edit = edit_of(before.pop("note"), after.pop("note"))
        self.events.append(Event(at(t), paper, action, before=before, after=after, note_edit=note_edit))
        return self


def run(mine: Copy, theirs: Copy):
    return merge(mine.annotations, mine.events, theirs.annotations, theirs.events)


def base() -> Copy:
    return Copy().edit(P, 0, note="first thoughts", tags=("rl",)).edit(Q, 1, starred=True)


def test_each_field_takes_the_newer_change():
    laptop, desk = base(), base()
    laptop.edit(P, 10, status="read")
    desk.edit(P, 5, status="reading")  # older than the laptop's status change
    desk.edit(P, 20, starred=True)
    result = run(desk, laptop).annotations[P]
    assert (result.status, result.starred) == ("read", True)
    assert result.updated == at(20)


def test_a_note_edited_on_one_side_replaces_the_other_without_conflict():
    laptop, desk = base(), base()
    laptop.edit(P, 10, note="first thoughts, revised")
    result = run(desk, laptop)
    assert result.annotations[P].note == "first thoughts, revised"
    assert CONFLICT_TAG not in result.annotations[P].tags
    assert result.report.conflicts == ()


def test_a_note_edited_on_both_sides_keeps_both_texts_and_tags_conflict():
    laptop, desk = base(), base()
    laptop.edit(P, 10, note="laptop text")
    desk.edit(P, 12, note="desk text, with more")
    result = run(desk, laptop)
    note = result.annotations[P].note
    assert note_parts(note) == ["laptop text", "desk text, with more"]  # older edit first
    assert NOTE_SEPARATOR.strip() in note
    assert result.annotations[P].tags == ("rl", CONFLICT_TAG)
    assert result.report.conflicts == (P,)
    assert any(c.field == "note" and "both" in c.describe() for c in result.report.changes)


def test_a_cleared_note_stays_cleared_but_an_unwritten_one_never_erases():
    laptop, desk = base(), base()
    laptop.edit(P, 10, note="")
    assert run(desk, laptop).annotations[P].note == ""
    fresh = Copy().edit(P, 30, starred=True)  # never had a note, edited later
    assert run(fresh, desk).annotations[P].note == "first thoughts"


def test_tags_added_on_both_sides_are_all_kept_and_a_removal_stays_removed():
    start = base().edit(P, 2, tags=("rl", "base"))
    desk, laptop = start.clone(), start.clone()
    desk.edit(P, 10, tags=("rl", "base", "fromdesk"))
    laptop.edit(P, 11, tags=("rl", "base", "fromlaptop"))  # the newer change
    laptop.edit(P, 12, tags=("base", "fromlaptop"))  # and "rl" taken off
    result = run(desk, laptop)
    assert result.annotations[P].tags == ("base", "fromlaptop", "fromdesk")
    assert run(laptop, desk).annotations[P].tags == ("base", "fromlaptop", "fromdesk")
    desk.edit(P, 20, tags=("base", "fromdesk")).edit(P, 21, tags=("base", "fromdesk", "rl"))  # added again later
    assert "rl" in run(desk, laptop).annotations[P].tags


def test_resolving_a_conflict_and_merging_the_same_copy_again_keeps_the_resolution():
    laptop, desk = base(), base()
    laptop.edit(P, 10, note="laptop text")
    desk.edit(P, 12, note="desk text")
    merged = run(desk, laptop)
    desk = Copy(merged.annotations, merged.events)
    desk.edit(P, 50, note="both, reconciled", tags=("rl",))
    again = run(desk, laptop)
    assert again.annotations[P].note == "both, reconciled"
    assert again.annotations[P].tags == ("rl",)
    assert not again.report.changes


def test_events_are_united_without_duplicates_and_new_papers_arrive():
    laptop, desk = base(), base()
    laptop.edit("ffffeeeedddd", 10, status="reading")
    desk.edit(Q, 11, tags=("theory",))
    result = run(desk, laptop)
    assert len(result.events) == len(base().events) + 2
    assert [e.time for e in result.events] == sorted(e.time for e in result.events)
    assert result.annotations["ffffeeeedddd"].status == "reading"
    assert result.report.events_added == 1
    assert any(c.paper == "ffffeeeedddd" and c.field == "paper" for c in result.report.changes)


def test_an_annotation_re_attached_on_one_side_is_merged_under_its_new_id():
    laptop, desk = base(), base()
    new_id = "abcdefabcdef"
    moved = replace(desk.annotations.pop(P), id=new_id)
    desk.annotations[new_id] = moved
    desk.events.append(Event(at(5), new_id, "reattach", before={"id": P}, after={"id": new_id}))
    laptop.edit(P, 10, status="read")
    result = run(laptop, desk)
    assert P not in result.annotations
    assert result.annotations[new_id].status == "read" and result.annotations[new_id].note == "first thoughts"
    assert any(c.field == "id" and c.before == P for c in result.report.changes)
    assert run(desk, laptop).annotations == result.annotations


def test_a_paper_re_attached_there_and_back_on_one_side_meets_the_copy_made_in_between():
    desk = base()
    other_id = "abcdefabcdef"

    def move(copy: Copy, old: str, new: str, t: int) -> None:
        copy.annotations[new] = replace(copy.annotations.pop(old), id=new)
        copy.events.append(Event(at(t), new, "reattach", before={"id": old}, after={"id": new}))

    move(desk, P, other_id, 5)  # the paper file's next version
    laptop = desk.clone()  # copied then
    move(desk, other_id, P, 8)  # and the desk went back to the first version
    laptop.edit(other_id, 10, status="read")
    result = run(desk, laptop)
    assert other_id not in result.annotations
    assert result.annotations[P].status == "read" and result.annotations[P].note == "first thoughts"


def test_merging_identical_copies_changes_nothing():
    result = run(base(), base())
    assert result.annotations == base().annotations
    assert not result.report.changed


def migrated(copy: Copy, *papers: str) -> Copy:
    """The copy as schema-1 data arrives: the annotations without any log entries for `papers`."""
    return Copy(copy.annotations, [e for e in copy.events if e.paper not in papers])


def test_a_copy_without_log_entries_for_a_paper_merges_the_same_way_twice():
    old = migrated(Copy().edit(P, 5, status="read", starred=True))  # set at 5, no log entries
    logged = Copy().edit(P, 3, status="reading")  # logged at 3; the star was never logged here
    first = run(old, logged)
    assert (first.annotations[P].status, first.annotations[P].starred) == ("read", True)
    merged = Copy(first.annotations, first.events)  # now holds the other copy's entries for P
    for again in (run(merged, logged), run(merged, old), run(logged, merged)):
        assert again.annotations[P] == first.annotations[P]
    assert not run(merged, logged).report.changed and not run(merged, old).report.changed
    assert run(logged, old).annotations == first.annotations


# Random histories: a shared start, then each side edits on its own (even/odd seconds, no ties).
NOTES = st.sampled_from(["", "a", "b", "ab, c", 'quote " and\nnewline'])
OPS = st.tuples(
    st.sampled_from([P, Q]),
    st.sampled_from(["status", "starred", "tags", "note"]),
    st.integers(0, 3),
    NOTES,
)
VALUES = {
    "status": ["unread", "reading", "read", "read"],
    "starred": [True, False, True, False],
    "tags": [(), ("rl",), ("rl", "ml"), ("ml",)],
}


def play(copy: Copy, ops, parity: int, start: int = 100) -> Copy:
    for n, (paper, field, choice, note) in enumerate(ops):
        value = note if field == "note" else VALUES[field][choice]
        copy.edit(paper, start + 2 * n + parity, **{field: value})
    return copy


# Papers one copy holds without any log entries (say migrated schema-1 data); the other logs them.
UNLOGGED = st.tuples(st.sampled_from("ab"), st.sets(st.sampled_from([P, Q])))


# Which copies log notes whole (as earlier versions did): the shared start, side a, side b.
WHOLE_NOTES = st.tuples(st.booleans(), st.booleans(), st.booleans())


@settings(max_examples=300, deadline=None)
@given(st.lists(OPS, max_size=4), st.lists(OPS, max_size=5), st.lists(OPS, max_size=5), UNLOGGED, WHOLE_NOTES)
def test_merge_is_symmetric_idempotent_and_loses_no_note(shared, ops_a, ops_b, unlogged, whole_notes):
    start = play(Copy(whole_notes=whole_notes[0]), shared, 0, start=0)
    a, b = play(start.clone(whole_notes[1]), ops_a, 0), play(start.clone(whole_notes[2]), ops_b, 1)
    side, papers = unlogged
    a, b = (migrated(a, *papers), b) if side == "a" else (a, migrated(b, *papers))
    ab, ba = run(a, b), run(b, a)
    assert ab.annotations == ba.annotations
    assert sorted(map(repr, ab.events)) == sorted(map(repr, ba.events))

    again = run(Copy(ab.annotations, ab.events), b)
    assert again.annotations == ab.annotations and not again.report.changed
    other_way = run(Copy(ab.annotations, ab.events), a)
    assert other_way.annotations == ab.annotations and not other_way.report.changed

    for side, other in ((a, b), (b, a)):
        for paper, note in side.annotations.items():
            text = note.note
            if not text.strip():
                continue
            kept = note_parts(ab.annotations[paper].note)
            # A note may only disappear when the other side replaced that very text after it was written.
            replaced_later = any(
                e.paper == paper and text_replaced(e, text) and e not in side.events for e in other.events
            )
            assert text in kept or replaced_later


def text_replaced(event: Event, text: str) -> bool:
    """Whether a log entry replaced this note text (logged whole, or as a note edit)."""
    return event.before.get("note") == text or event.note_edit.get("was") == digest(text)


def test_a_note_replaced_on_one_side_gives_way_whether_its_change_logs_the_note_whole_or_as_an_edit():
    for whole_notes in (True, False):
        desk = Copy(whole_notes=whole_notes).edit(P, 0, note="first thoughts")
        laptop = desk.clone()
        laptop.edit(P, 10, note="first thoughts, and second ones")
        desk.edit(Q, 20, starred=True)  # the desk changed later, but not the note
        for result in (run(desk, laptop), run(laptop, desk)):
            assert result.annotations[P].note == "first thoughts, and second ones"
            assert result.report.conflicts == ()


def test_the_summary_names_a_users_own_title_and_never_says_null():
    desk, laptop = Copy(), Copy()
    laptop.edit(P, 1, title="My name for it")
    laptop.edit(Q, 2, title="Given here")
    desk.edit(Q, 0, starred=True)
    lines = run(desk, laptop).report.lines()
    assert lines[lines.index(P) + 1] == "    new here: own title 'My name for it'"
    assert lines[lines.index(Q) + 1] == "    title → 'Given here'"
    desk.edit(Q, 3, title=None)
    back = run(laptop, desk).report.lines()
    assert back[0] == Q and "    title: back to the paper's own" in back
    assert not any("null" in line for line in lines)


def test_with_a_base_a_field_changed_on_one_side_only_takes_that_sides_value_whatever_the_clocks_say():
    start = base().edit(P, 100, status="reading")
    laptop, desk = start.clone(), start.clone()
    laptop.edit(P, 50, status="read", tags=())  # its clock runs behind the machine that made the base
    desk.edit(Q, 150, starred=False)
    result = merge(desk.annotations, desk.events, laptop.annotations, laptop.events, start.annotations).annotations
    assert result[P].status == "read" and result[P].tags == () and not result[Q].starred


def test_with_a_base_notes_appended_on_both_sides_keep_the_shared_text_once_and_both_additions():
    start = Copy().edit(P, 0, note="shared\nlines")
    laptop, desk = start.clone(), start.clone()
    laptop.edit(P, 10, note="shared\nlines\nlaptop")
    desk.edit(P, 20, note="shared\nlines\ndesk")
    for mine, theirs in ((desk, laptop), (laptop, desk)):  # the same either way round
        result = merge(mine.annotations, mine.events, theirs.annotations, theirs.events, start.annotations)
        assert result.annotations[P].note == "shared\nlines\nlaptop\ndesk" and result.report.conflicts == ()


def test_with_a_base_edits_at_separate_places_are_both_applied_and_overlapping_ones_both_kept():
    start = Copy().edit(P, 0, note="one\ntwo\nthree\nfour")
    laptop, desk = start.clone(), start.clone()
    laptop.edit(P, 10, note="ONE\ntwo\nthree\nfour")
    desk.edit(P, 20, note="one\ntwo\nthree\nFOUR")
    assert (
        merge(desk.annotations, desk.events, laptop.annotations, laptop.events, start.annotations).annotations[P].note
        == "ONE\ntwo\nthree\nFOUR"
    )
    laptop.edit(P, 30, note="ONE\nTWO, laptop\nthree\nfour")
    desk.edit(P, 40, note="one\nTWO, desk\nthree\nFOUR")
    result = merge(desk.annotations, desk.events, laptop.annotations, laptop.events, start.annotations)
    assert NOTE_SEPARATOR in result.annotations[P].note and CONFLICT_TAG in result.annotations[P].tags
