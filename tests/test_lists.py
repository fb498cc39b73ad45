"""The library of lists: every paper file opened with a database is remembered, missing papers are those of no list
whose file exists, `readlist lists` shows each list's progress and `--forget` drops one."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from readlist.cli import cli
from readlist.core.files.paths import bundled_papers
from readlist.core.papers.reader import read_papers
from readlist.core.store.store import Store


def abstracts(start: int, stop: int) -> list[str]:
    return [paper.text for paper in read_papers(bundled_papers()).papers[start:stop]]


@pytest.fixture
def library(tmp_path):
    """Two paper files of different papers, and a `run(papers, *args)` of readlist on one database."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("ICML list\n\n" + "\n\n".join(abstracts(0, 5)), encoding="utf-8")
    b.write_text("NeurIPS list\n\n" + "\n\n".join(abstracts(5, 10)), encoding="utf-8")
    db = tmp_path / "readlist.json"

    def run(papers, *args):
        result = CliRunner().invoke(cli, ["--papers", str(papers), "--db", str(db), *args])
        return result

    run.a, run.b, run.db = a, b, db
    return run


def test_open_a_annotate_open_b_annotate_back_to_a_nothing_is_missing(library):
    run = library
    assert run(run.a, "star", "#1").exit_code == 0
    assert run(run.a, "note", "#2", "--text", "read the proofs").exit_code == 0
    opened_b = run(run.b, "status", "#3", "read")
    assert opened_b.exit_code == 0 and "missing" not in opened_b.stderr  # A's papers are not missing from B
    assert run(run.b, "list", "--missing").stdout == ""
    back = run(run.a, "list", "--missing", "--json")
    assert back.exit_code == 0 and json.loads(back.stdout) == [] and back.stderr == ""
    starred = json.loads(run(run.a, "list", "--json", "--starred").stdout)
    assert [paper["index"] for paper in starred] == [1]
    assert json.loads(run(run.b, "list", "--json", "--status", "read").stdout)[0]["index"] == 3


def test_deleted_list_keeps_its_annotations_shown_as_gone_and_missing(library):
    run = library
    run(run.a, "star", "#1")
    run(run.b, "star", "#2")
    run(run.b, "note", "#4", "--text", "B's note")
    b_ids = [paper.id for paper in read_papers(run.b).papers]
    run.b.unlink()
    missing = json.loads(run(run.a, "list", "--missing", "--json").stdout)
    assert sorted(ann["id"] for ann in missing) == sorted([b_ids[1], b_ids[3]])
    shown = run(run.a, "lists")
    assert shown.exit_code == 0
    lines = shown.stdout.splitlines()
    gone = next(line for line in lines if line.startswith("NeurIPS list"))
    assert "5 papers · 0 read · 0 reading · 1 starred · 1 noted" in gone and gone.endswith("(file gone)")
    assert str(run.b) in shown.stdout
    listed = {each["name"]: each for each in json.loads(run(run.a, "lists", "--json").stdout)}
    assert listed["NeurIPS list"]["exists"] is False and listed["NeurIPS list"]["starred"] == 1
    assert listed["ICML list"]["exists"] is True and listed["ICML list"]["papers"] == 5
    assert Store(run.db).get(b_ids[3]).note == "B's note"  # never lost


def test_lists_forget_by_name_or_path_keeps_annotations(library, tmp_path):
    run = library
    run(run.a, "star", "#1")
    run(run.b, "star", "#1")
    twin = tmp_path / "other" / "a.txt"  # a second list named as A is
    twin.parent.mkdir()
    twin.write_text("ICML list\n\n" + abstracts(12, 13)[0], encoding="utf-8")
    run(twin, "list")
    ambiguous = run(run.a, "lists", "--forget", "icml list")
    assert ambiguous.exit_code == 2 and ambiguous.stderr.count("\n") == 1 and "names 2 lists" in ambiguous.stderr
    unknown = run(run.a, "lists", "--forget", "no such list")
    assert unknown.exit_code == 2 and "no such list" in unknown.stderr
    forgot = run(run.a, "lists", "--forget", "NeurIPS list")
    assert forgot.exit_code == 0, forgot.output
    by_path = run(run.a, "lists", "--forget", str(twin))
    assert by_path.exit_code == 0, by_path.output
    names = [each["name"] for each in json.loads(run(run.a, "lists", "--json").stdout)]
    assert names == ["ICML list"]
    b_first = read_papers(run.b).papers[0].id
    assert Store(run.db).get(b_first).starred  # annotations stay
    assert [ann["id"] for ann in json.loads(run(run.a, "list", "--missing", "--json").stdout)] == [b_first]


def test_two_paths_to_one_file_are_one_list(library, tmp_path):
    run = library
    link = tmp_path / "link.txt"
    link.symlink_to(run.a)
    hard = tmp_path / "hard.txt"
    os.link(run.a, hard)
    run(run.a, "star", "#1")
    run(link, "star", "#2")
    run(hard, "star", "#3")
    listed = json.loads(run(run.a, "lists", "--json").stdout)
    assert [(each["path"], each["starred"]) for each in listed] == [(str(run.a), 3)]


def test_a_changed_file_reattaches_and_its_stored_ids_follow(library):
    run = library
    run(run.a, "note", "#2", "--text", "kept")
    run(run.b, "star", "#1")
    texts = abstracts(0, 5)
    texts[1] = texts[1] + " Code is available."
    run.a.write_text("ICML list\n\n" + "\n\n".join(texts), encoding="utf-8")
    moved = run(run.a, "list", "--missing")
    assert moved.stdout == "" and "re-attached the annotations of #2" in moved.stderr
    new_id = read_papers(run.a).papers[1].id
    assert Store(run.db).get(new_id).note == "kept"
    known = Store(run.db).lists()[str(run.a)]
    assert set(known.ids) == {paper.id for paper in read_papers(run.a).papers}


def test_another_lists_paper_is_never_reattached_onto_this_list(tmp_path):
    """Opening B never searches it for A's annotations, even for a paper of B that reads nearly as A's does."""
    text = abstracts(0, 1)[0]
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(text, encoding="utf-8")
    b.write_text(text + " Code is available.", encoding="utf-8")  # the same paper, edited: a candidate by text
    store = Store(tmp_path / "db.json")
    papers_a = read_papers(a)
    store.reconcile(papers_a)
    store.update(papers_a.papers[0], note="A's")
    store = Store(tmp_path / "db.json")
    assert store.reconcile(read_papers(b)) == []
    assert store.get(papers_a.papers[0].id).note == "A's"
    assert store.orphans() == []


def test_reading_without_a_database_makes_none_and_the_list_is_remembered_with_the_first_change(library):
    run = library
    assert run(run.a, "list").exit_code == 0
    assert not run.db.exists()
    shown = run(run.a, "lists")
    assert shown.exit_code == 0 and "No paper file opened" in shown.stdout and not run.db.exists()
    run(run.a, "star", "#1")
    assert [each["name"] for each in json.loads(run(run.a, "lists", "--json").stdout)] == ["ICML list"]


def test_an_older_database_without_the_table_opens_and_gains_it(library):
    run = library
    run(run.a, "star", "#1")
    data = json.loads(run.db.read_text())
    del data["lists"]
    run.db.write_text(json.dumps(data))
    assert run(run.a, "list", "--missing").stdout == ""
    assert json.loads(run(run.a, "lists", "--json").stdout)[0]["starred"] == 1
    assert "lists" in json.loads(run.db.read_text())


def test_opening_the_same_list_again_writes_nothing(library):
    run = library
    run(run.a, "star", "#1")
    before = run.db.stat().st_mtime_ns, run.db.read_bytes()
    run(run.a, "list")
    assert (run.db.stat().st_mtime_ns, run.db.read_bytes()) == before


def test_ids_are_packed_small():
    from readlist.core.store.lists import pack_ids, unpack_ids

    ids = [f"{n:012x}" for n in range(100_000)]
    packed = pack_ids(ids)
    assert len(packed) == 800_000  # 8 characters a paper
    assert unpack_ids(packed) == tuple(ids)
    assert unpack_ids(pack_ids(["odd-id", "a1b2c3d4e5f6"])) == ("odd-id", "a1b2c3d4e5f6")


def test_merge_carries_the_lists_the_newer_opening_winning(library, tmp_path):
    run = library
    run(run.a, "star", "#1")
    laptop = tmp_path / "laptop.json"
    CliRunner().invoke(cli, ["--papers", str(run.b), "--db", str(laptop), "star", "#1"])
    merged = CliRunner().invoke(cli, ["--papers", str(run.a), "--db", str(run.db), "merge", str(laptop)])
    assert merged.exit_code == 0, merged.output
    assert "1 list(s) opened there" in merged.stdout
    names = {each["name"] for each in json.loads(run(run.a, "lists", "--json").stdout)}
    assert names == {"ICML list", "NeurIPS list"}
    assert run(run.a, "list", "--missing").stdout == ""  # B's paper came with its list


def test_in_all_is_a_row_of_the_query_language():
    from readlist.core.search.query import OPERATORS, QueryError, parse

    assert any(op.label == "in:" and op.value == "all" for op in OPERATORS)  # so help and hints name it
    assert parse("graph in:all").everywhere and parse("IN:ALL").everywhere
    assert not parse("graph").everywhere and not parse("graph in:al").everywhere  # being typed: no error yet
    for bad in ("in:mine graph", "-in:all graph", "in:all is:missing"):
        with pytest.raises(QueryError):
            parse(bad)


def test_search_in_all_finds_every_lists_papers_naming_each_ones_list(library):
    run = library
    run(run.a, "star", "#1")
    run(run.b, "tag", "#2", "+theirs")
    word = read_papers(run.b).papers[1].text.split()[3]
    alone = run(run.a, "search", "tag:theirs")
    assert alone.exit_code == 1  # this list does not hold it
    found = run(run.a, "search", "in:all", "tag:theirs")
    assert found.exit_code == 0, found.output
    assert found.stdout.split()[3:5] == ["NeurIPS", "list"]
    hits = json.loads(run(run.a, "search", "in:all", word, "--json", "-n", "0").stdout)
    assert {hit["list"] for hit in hits} <= {"ICML list", "NeurIPS list"}
    assert any(hit["list"] == "NeurIPS list" and hit["tags"] == ["theirs"] for hit in hits)
    every = json.loads(run(run.a, "search", "in:all", "-n", "0", "--json").stdout)
    assert len(every) == 10 and every[0]["list"] == "ICML list" and every[0]["starred"]  # this list first
    run.b.unlink()  # a list whose file is gone is not searched
    assert len(json.loads(run(run.a, "search", "in:all", "-n", "0", "--json").stdout)) == 5


def test_a_moved_list_is_kept_as_gone_and_its_papers_follow_it_to_the_new_place(library, tmp_path):
    run = library
    run(run.b, "note", "#1", "--text", "B's")
    moved = tmp_path / "moved" / "b.txt"
    moved.parent.mkdir()
    run.b.rename(moved)
    assert run(moved, "list", "--missing").stdout == ""  # the list at its new place holds them
    assert json.loads(run(moved, "list", "--json").stdout)[0]["note"] == "B's"
    listed = {each["path"]: each for each in json.loads(run(moved, "lists", "--json").stdout)}
    assert listed[str(run.b)]["exists"] is False and listed[str(run.b)]["noted"] == 1  # kept, marked gone
    assert listed[str(moved)]["exists"] is True and listed[str(moved)]["noted"] == 1


def test_a_read_only_database_is_read_without_remembering_the_list(library):
    run = library
    run(run.a, "star", "#1")
    run.db.chmod(0o444)  # honoured even where root could write
    try:
        shown = run(run.b, "list")
        assert shown.exit_code == 0 and shown.stderr == ""
        undone = run(run.b, "undo")  # nothing of list B to undo, and no failed write to report instead
        assert undone.exit_code == 1 and "cannot save" not in undone.stderr, undone.stderr
        assert [each["name"] for each in json.loads(run(run.b, "lists", "--json").stdout)] == ["ICML list"]
    finally:
        run.db.chmod(0o644)


def test_a_list_document_whose_ids_do_not_decode_is_not_read_as_a_list_of_no_papers():
    # Read as an empty list, its papers' annotations would count as in no list: it is forgotten instead, and
    # remembered again when its file is next opened.
    from readlist.core.store.lists import pack_ids, read_lists

    good = {"path": "/papers/a.txt", "name": "A", "format": "text", "ids": pack_ids(["a1b2c3d4e5f6"]),
            "first_opened": "2026-01-01T00:00:00Z", "last_opened": "2026-01-02T00:00:00Z"}  # fmt: skip
    damaged = dict(good, path="/papers/b.txt", ids="not base64 at all!")
    found = read_lists([good, damaged])
    assert list(found) == ["/papers/a.txt"]
    assert found["/papers/a.txt"].ids == ("a1b2c3d4e5f6",)


def test_reading_the_lists_makes_the_ids_of_none_until_they_are_asked_for(monkeypatch):
    from readlist.core.store import lists

    made = []
    unpack = lists._unpack
    monkeypatch.setattr(lists, "_unpack", lambda packed: made.append(packed) or unpack(packed))
    doc = {"path": "/papers/a.txt", "name": "A", "format": "text", "ids": lists.pack_ids(["a1b2c3d4e5f6"] * 3),
           "first_opened": "2026-01-01T00:00:00Z", "last_opened": "2026-01-02T00:00:00Z"}  # fmt: skip
    found = lists.read_lists([doc])  # every command reads them: 100,000 ids of a list it may never ask for
    assert made == []
    assert found["/papers/a.txt"].ids == ("a1b2c3d4e5f6",) * 3 and made == [doc["ids"]]
