"""The annotation store's API: changes, persistence, the log, undo and file permissions."""

from __future__ import annotations

import json
import stat
import sys
from datetime import UTC, datetime, timedelta

import pytest

from readlist.core.papers.reader import parse_text
from readlist.core.store.store import STATUSES, Annotation, Store

ABSTRACTS = [
    "We study sparse attention for long documents and show that a learned routing matches dense attention.",
    "A new benchmark for table question answering reveals that retrieval errors dominate model failures.",
    "Diffusion policies for robot grasping transfer from simulation when trained with randomised friction.",
    "We prove convergence of a stochastic proximal method for composite objectives under weak assumptions.",
]


@pytest.fixture
def papers():
    return parse_text("\n\n".join(ABSTRACTS)).papers


@pytest.fixture
def db(tmp_path):
    return tmp_path / "readlist.json"


class Clock:
    def __init__(self):
        self.time = datetime(2025, 7, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.time

    def advance(self, **kwargs) -> None:
        self.time += timedelta(**kwargs)


def test_untouched_paper_has_default_annotation_and_no_file_is_created(db, papers):
    store = Store(db)
    ann = store.get(papers[0].id)
    assert ann == Annotation(papers[0].id)
    assert ann.is_default
    assert store.all() == {}
    assert not db.exists()


def test_changes_persist_across_reopen(db, papers):
    store = Store(db)
    store.toggle_star(papers[0])
    store.set_status(papers[1], "reading")
    store.update(papers[2], tags=[" ml ", "ML", "", "robots", "ml"])
    store.set_note(papers[3], "# Idea\n\nTry it on *graphs*.\n\n")
    again = Store(db)
    assert again.get(papers[0].id).starred
    assert again.get(papers[1].id).status == "reading"
    assert again.get(papers[2].id).tags == ("ml", "robots")
    assert again.get(papers[3].id).note == "# Idea\n\nTry it on *graphs*."
    assert set(again.all()) == {p.id for p in papers}
    assert again.get(papers[0].id).snippet.startswith("We study sparse attention")


def test_status_cycle_and_read_at(db, papers):
    clock = Clock()
    store = Store(db, now=clock)
    seen = [store.cycle_status(papers[0]).status for _ in range(4)]
    assert seen == ["reading", "read", "unread", "reading"]
    clock.advance(minutes=5)
    ann = store.set_status(papers[0], "read")
    assert ann.read_at == "2025-07-01T12:05:00Z"
    assert store.set_status(papers[0], "unread").read_at is None
    with pytest.raises(ValueError):
        store.set_status(papers[0], "done")
    assert store.get(papers[0].id).status == "unread"


def test_unchanged_values_log_nothing(db, papers):
    store = Store(db)
    store.set_status(papers[0], "reading")
    store.set_status(papers[0], "reading")
    store.update(papers[0], starred=False, note="")
    assert len(store.events()) == 1


def test_title_override_and_default(db, papers):
    store = Store(db)
    assert store.update(papers[0], title="  Sparse   routing ").title == "Sparse routing"
    assert not store.get(papers[0].id).is_default
    assert store.update(papers[0], title="").title is None
    assert store.get(papers[0].id).is_default
    with pytest.raises(TypeError):
        store.update(papers[0], colour="red")


def test_update_many_is_one_undoable_step(db, papers):
    store = Store(db)
    store.set_status(papers[0], "read")
    store.toggle_star(papers[1])
    assert store.update_many(papers, status="read") == 3
    assert all(store.get(p.id).status == "read" for p in papers)
    message = store.undo()
    assert message == "undid status unread → read on 3 papers"
    assert [store.get(p.id).status for p in papers] == ["read", "unread", "unread", "unread"]
    assert store.get(papers[1].id).starred  # the earlier change is still there
    assert store.update_many(papers, status="read") == 3
    assert store.update_many(papers, status="read") == 0


def test_tags_of_many_papers_change_as_one_undoable_step_each_keeping_its_own(db, papers):
    store = Store(db)
    store.change_tags(papers[0], ["mine", "old"])
    assert store.change_tags_many(papers[:3], ["new"], ["OLD"]) == 3
    assert [store.get(p.id).tags for p in papers[:3]] == [("mine", "new"), ("new",), ("new",)]
    assert store.change_tags_many(papers[:3], ["new"]) == 0  # nothing to change: no step to undo
    assert store.undo() == "undid tags +new -old on 3 papers"
    assert [store.get(p.id).tags for p in papers[:3]] == [("mine", "old"), (), ()]


def test_undo_walks_back_repeatedly_and_persists(db, papers):
    store = Store(db)
    store.toggle_star(papers[0])
    store.update(papers[0], tags=["a", "b"])
    store.set_note(papers[1], "first")
    store.set_note(papers[1], "second")
    assert store.undo() is not None
    assert store.get(papers[1].id).note == "first"
    store.undo()
    store.undo()
    assert Store(db).get(papers[0].id).tags == ()
    assert store.get(papers[0].id).starred
    store.undo()
    assert not Store(db).get(papers[0].id).starred
    assert store.undo() is None
    actions = [event.action for event in store.events()]
    assert actions[:4] == ["undo"] * 4
    assert store.events(limit=2) == store.events()[:2]


def test_undo_takes_the_newest_change_of_the_file_from_any_process(db, papers):
    tui, cli = Store(db), Store(db)
    tui.toggle_star(papers[0])
    cli.update(papers[1], tags=["later"])
    assert "tags +later" in tui.undo()
    assert tui.get(papers[1].id).tags == ()
    assert tui.get(papers[0].id).starred


def test_undo_for_one_list_leaves_changes_to_papers_of_another_list_and_names_the_title(db, papers):
    store = Store(db)
    store.set_note(papers[0], "in this list")
    store.set_note(papers[3], "in another list")  # the newest change, to a paper this list does not hold
    this_list = {paper.id: paper for paper in papers[:2]}
    message = store.undo(this_list, lambda pid: "Sparse attention for long documents")
    assert message == "undid note on 'Sparse attention for long documents'"
    assert store.get(papers[0].id).note == "" and store.get(papers[3].id).note == "in another list"
    assert store.undo(this_list) is None


def test_event_log_records_before_and_after(db, papers):
    store = Store(db)
    store.set_status(papers[0], "reading")
    store.update(papers[0], tags=["x"])
    newest = store.events()[0]
    assert (newest.paper, newest.action) == (papers[0].id, "tags")
    assert (newest.before, newest.after) == ({"tags": []}, {"tags": ["x"]})
    assert newest.group and newest.time.endswith("Z")
    assert store.events()[1].after == {"status": "reading"}


def test_tag_counts(db, papers):
    store = Store(db)
    store.update(papers[0], tags=["ml", "theory"])
    store.update(papers[1], tags=["ml"])
    assert store.tag_counts() == {"ml": 2, "theory": 1}


def test_statuses_constant():
    assert STATUSES == ("unread", "reading", "read")


def test_file_and_backups_are_private_and_new_directory_is_0700(tmp_path, papers):
    db = tmp_path / "new" / "dir" / "readlist.json"
    clock = Clock()
    store = Store(db, now=clock)
    store.toggle_star(papers[0])
    clock.advance(hours=2)
    store.toggle_star(papers[1])
    backups = list(db.parent.glob("readlist.json.bak-*"))
    assert backups
    for path in [db, *backups]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700


def test_file_is_tinydb_json_with_meta_annotations_and_events(db, papers):
    from tinydb import TinyDB

    Store(db).toggle_star(papers[0])
    data = json.loads(db.read_text(encoding="utf-8"))
    assert data["meta"]["1"]["schema_version"] == 4
    with TinyDB(db) as tiny:
        assert tiny.table("annotations").all()[0]["id"] == papers[0].id
        assert tiny.table("events").all()[0]["action"] == "star"


def test_file_always_matches_memory_after_many_changes(db, papers):
    store = Store(db)
    for n in range(30):
        paper = papers[n % len(papers)]
        store.update(paper, note=f"note {n}", tags=[f"t{n % 3}"], starred=n % 2 == 0)
        if n % 7 == 0:
            store.undo()
    assert Store(db).all() == store.all()
    assert Store(db).events() == store.events()


def test_counts_cover_only_the_given_papers(db, papers):
    store = Store(db)
    store.set_status(papers[0], "read")
    store.set_status(papers[1], "reading")
    store.toggle_star(papers[1])
    store.toggle_star(papers[2])
    assert store.counts({paper.id for paper in papers}) == (1, 1, 2)
    assert store.counts({papers[1].id}) == (0, 1, 1)
    store.toggle_star(papers[2])  # unstarred again: a document that no longer counts
    assert store.counts({paper.id for paper in papers}) == (1, 1, 1)


def test_counts_and_all_kept_from_change_to_change_are_those_a_fresh_read_gives(db, papers):
    store = Store(db)
    ids = frozenset(paper.id for paper in papers)  # the same list asked after every change, as the header does
    store.counts(ids), store.all()
    steps = [
        lambda: store.update_many(papers[:3], status="read"),
        lambda: store.toggle_star(papers[1]),
        lambda: store.set_status(papers[0], "reading"),
        store.undo,
        lambda: store.update(papers[2], starred=True, tags=["x"]),
        store.undo,
        store.undo,
    ]
    for step in steps:
        step()
        fresh = Store(db)
        assert store.counts(ids) == fresh.counts(ids)
        assert store.all() == fresh.all()


def test_annotations_read_from_documents_written_small_are_those_read_field_by_field(db, papers):
    store = Store(db)
    store.update(papers[0], starred=True, tags=["a", "b"], note="n", title="T")
    store.set_status(papers[1], "read")  # written without its read date: its change time
    store.toggle_star(papers[2])
    store.toggle_star(papers[2])  # emptied
    store.set_status(papers[3], "reading")
    data = json.loads(db.read_text(encoding="utf-8"))
    doc = next(doc for doc in data["annotations"].values() if doc["id"] == papers[3].id)
    doc["seen_on"] = "a newer readlist's field"
    db.write_text(json.dumps(data), encoding="utf-8")
    docs = list(json.loads(db.read_text(encoding="utf-8"))["annotations"].values())
    assert len(docs) == 4 and any("read_at" not in doc and doc.get("status") == "read" for doc in docs)
    for doc in docs:
        assert vars(Annotation.from_stored(doc)) == vars(Annotation.from_doc(doc))
        # no bigger: its dict shares its keys with the other annotations' (100,000 of them took 35 MB more)
        assert sys.getsizeof(vars(Annotation.from_stored(doc))) <= sys.getsizeof(vars(Annotation.from_doc(doc)))
    fresh = Store(db)
    assert fresh.get_many(papers) == [Annotation.from_doc(doc) for doc in docs]
    assert fresh.get(papers[1].id).read_at == fresh.get(papers[1].id).updated


def test_all_follows_every_change_from_this_and_other_processes(db, papers):
    store = Store(db)
    p0, p1 = papers[0], papers[1]
    assert store.all() == {}
    store.toggle_star(p0)
    assert store.all()[p0.id].starred
    listing = store.all()
    listing.pop(p0.id)  # callers get their own copy
    assert p0.id in store.all()
    Store(db).set_status(p1, "read")  # another process
    store.reload_if_changed()
    assert store.all()[p1.id].status == "read"
    store.undo()
    assert store.all()[p1.id].status == "unread"
