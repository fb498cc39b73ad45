"""Reading progress: status counts, papers read per day from events, per-tag progress, the text bar."""

from __future__ import annotations

from datetime import UTC, date

from readlist.core.papers.paper import Paper
from readlist.core.store.annotation import Annotation as Note
from readlist.core.store.annotation import Event
from readlist.core.store.stats import compute_stats, progress_bar


def Ev(time: str, paper: str, action: str = "status", after: dict | None = None) -> Event:
    return Event(time, paper, action, before={}, after=after or {})


PAPERS = [Paper(id=f"{n:012x}", index=n + 1, text=f"Abstract number {n}.") for n in range(6)]
ID = [p.id for p in PAPERS]
TODAY = date(2025, 7, 13)


def stats(annotations, events=()):
    return compute_stats(PAPERS, {a.id: a for a in annotations}, list(events), TODAY, tz=UTC)


def test_counts_by_status_star_and_note():
    s = stats(
        [
            Note(ID[0], status="read", starred=True, note="good"),
            Note(ID[1], status="reading", note="   "),
            Note(ID[2], status="read", tags=("rl",)),
            Note("ffffffffffff", status="read", starred=True, note="orphan"),  # no longer in the list
        ]
    )
    assert (s.total, s.unread, s.reading, s.read) == (6, 3, 1, 2)
    assert (s.starred, s.noted) == (1, 1)


def test_read_per_day_counts_distinct_papers_in_the_last_30_days():
    read = {"status": "read"}
    events = [
        Ev("2025-07-13T09:00:00+00:00", ID[0], after=read),
        Ev("2025-07-13T10:00:00+00:00", ID[0], after=read),  # the same paper twice: one
        Ev("2025-07-13T11:00:00+00:00", ID[1], after=read),
        Ev("2025-07-12T23:59:59Z", ID[2], after=read),
        Ev("2025-06-14T12:00:00+00:00", ID[3], after=read),  # oldest day in the window
        Ev("2025-06-13T12:00:00+00:00", ID[4], after=read),  # 31 days ago: outside
        Ev("2025-07-13T12:00:00+00:00", ID[5], after={"status": "reading"}),
        Ev("2025-07-13T12:00:00+00:00", ID[5], action="note", after={"note": "x"}),
    ]
    per_day = stats([], events).read_per_day
    assert len(per_day) == 30
    assert per_day[-1] == 2 and per_day[-2] == 1 and per_day[0] == 1
    assert sum(per_day) == 4


def test_an_undone_read_does_not_count():
    events = [
        Event("2025-07-13T09:00:00Z", ID[0], "status", {"status": "unread"}, {"status": "read"}, group="g1"),
        Event("2025-07-13T09:01:00Z", ID[0], "undo", {"status": "read"}, {"status": "unread"}, "g2", undoes="g1"),
        Event("2025-07-13T09:02:00Z", ID[1], "status", {"status": "unread"}, {"status": "read"}, group="g3"),
    ]
    assert stats([], events).read_per_day[-1] == 1


def test_a_read_set_back_the_same_day_does_not_count():
    events = [  # r r r: unread -> reading -> read -> unread, a slip of the key
        Event("2025-07-13T09:00:00Z", ID[0], "status", {"status": "unread"}, {"status": "reading"}, group="g1"),
        Event("2025-07-13T09:00:01Z", ID[0], "status", {"status": "reading"}, {"status": "read"}, group="g2"),
        Event("2025-07-13T09:00:02Z", ID[0], "status", {"status": "read"}, {"status": "unread"}, group="g3"),
        Event("2025-07-12T09:00:00Z", ID[1], "status", {"status": "unread"}, {"status": "read"}, group="g4"),
        Event("2025-07-13T10:00:00Z", ID[1], "status", {"status": "read"}, {"status": "reading"}, group="g5"),
    ]
    per_day = stats([], events).read_per_day
    assert per_day[-1] == 0 and per_day[-2] == 1  # a reading on an earlier day stands


def test_a_read_set_back_within_the_same_second_does_not_count():
    events = [  # newest first, as the log gives them
        Event("2025-07-13T09:00:00Z", ID[0], "status", {"status": "read"}, {"status": "unread"}, group="g2"),
        Event("2025-07-13T09:00:00Z", ID[0], "status", {"status": "reading"}, {"status": "read"}, group="g1"),
    ]
    assert stats([], events).read_per_day[-1] == 0


def test_an_undo_that_brings_read_back_is_not_a_new_reading():
    events = [
        Event("2025-07-10T09:00:00Z", ID[0], "status", {"status": "unread"}, {"status": "read"}, group="g1"),
        Event("2025-07-13T09:00:00Z", ID[0], "status", {"status": "read"}, {"status": "reading"}, group="g2"),
        Event("2025-07-13T09:01:00Z", ID[0], "undo", {"status": "reading"}, {"status": "read"}, "g3", undoes="g2"),
    ]
    per_day = stats([], events).read_per_day
    assert per_day[-4] == 1 and per_day[-1] == 0


def test_tags_with_counts_and_read_counts_most_used_first():
    s = stats(
        [
            Note(ID[0], status="read", tags=("rl", "theory")),
            Note(ID[1], tags=("rl",)),
            Note(ID[2], status="read", tags=("rl",)),
            Note(ID[3], status="read", tags=("agents",)),
        ]
    )
    assert s.tags == (("rl", 3, 2), ("agents", 1, 1), ("theory", 1, 1))
    assert s.to_dict()["tags"][0] == {"tag": "rl", "papers": 3, "read": 2}


def test_to_dict_dates_each_day():
    days = stats([]).to_dict()["read_per_day"]
    assert days[0]["date"] == "2025-06-14" and days[-1]["date"] == "2025-07-13"


def test_progress_bar():
    assert progress_bar(0, 10, 10) == "░" * 10
    assert progress_bar(10, 10, 10) == "█" * 10
    assert progress_bar(5, 10, 10) == "█" * 5 + "░" * 5
    assert progress_bar(1, 1000, 10).startswith("█")  # any progress shows
    assert progress_bar(999, 1000, 10).endswith("░")  # almost is not done
    assert progress_bar(0, 0, 4) == "░░░░"
    assert len(progress_bar(3, 7, 23)) == 23
