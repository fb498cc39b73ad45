"""`readlist stats`, `export`, `related` and `merge` from the command line."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import bibtexparser
import pytest
from click.testing import CliRunner

from readlist.cli import cli
from readlist.core.papers.reader import read_papers
from readlist.core.search.related import RelatedIndex
from readlist.core.store.store import Store

ABSTRACTS = [
    "Diffusion models generate images by iterative denoising; we distil the diffusion sampler into four steps.",
    "We accelerate diffusion sampling for image generation with a distilled denoising sampler.",
    "Graph neural networks suffer from oversquashing; we rewire graph edges to improve message passing.",
    "Message passing on graphs: rewiring edges of graph neural networks reduces oversquashing.",
    "Reinforcement learning agents explore sparse reward environments with curiosity bonuses.",
]


@pytest.fixture
def env(tmp_path, write_file):
    papers_path = write_file("Test list\n\n" + "\n\n".join(ABSTRACTS) + "\n")
    papers = read_papers(papers_path).papers
    db = tmp_path / "db.json"

    def run(*args, db_path=db):
        result = CliRunner().invoke(cli, ["--papers", str(papers_path), "--db", str(db_path), *args])
        return result

    return papers, db, run


def clock(start: datetime):
    state = {"now": start}

    def now():
        state["now"] += timedelta(seconds=1)
        return state["now"]

    return now


def test_stats_counts_bar_and_tags(env):
    papers, db, run = env
    store = Store(db)
    store.update(papers[0], status="read", tags=["diffusion"], starred=True)
    store.update(papers[1], status="reading", tags=["diffusion"], note="later")
    store.update(papers[2], status="read")
    result = run("stats")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "Papers   5" in lines
    assert any(line.startswith("Read     ") and "2/5 (40%)" in line and "█" in line for line in lines)
    assert "Reading  1" in lines and "Unread   2" in lines and "Starred  1" in lines and "Noted    1" in lines
    assert "(2 papers)" in result.output  # both read today
    assert any(line.split()[:3] == ["diffusion", "2", "█████░░░░░"] for line in lines)
    data = json.loads(run("stats", "--json").output)
    assert data["read"] == 2 and data["read_per_day"][-1]["read"] == 2
    assert data["tags"] == [{"tag": "diffusion", "papers": 2, "read": 1}]


def test_export_csv_to_stdout_defaults_to_annotated_papers(env):
    papers, db, run = env
    note = 'line one, with "quotes"\nline two'
    Store(db).update(papers[3], note=note, tags=["graphs", "gnn"])
    result = run("export", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output, newline="")))
    assert [r["index"] for r in rows] == ["4"]
    assert rows[0]["note"] == note and rows[0]["tags"] == "graphs; gnn"
    every = list(csv.DictReader(io.StringIO(run("export", "--format", "csv", "--all").output, newline="")))
    assert len(every) == 5


def test_export_query_and_bibtex(env):
    _, _, run = env
    result = run("export", "--format", "bibtex", "--query", "OVERSQUASHING")
    assert result.exit_code == 0, result.output
    library = bibtexparser.parse_string(result.output)
    assert library.failed_blocks == []
    assert [e.key for e in library.entries] == ["papergraph", "papermessage"]  # no author, no year: paperWORD


@pytest.mark.parametrize("query", ["", "title:", "  "])
def test_export_with_a_query_of_nothing_is_refused_rather_than_exporting_every_paper(env, query):
    _, _, run = env
    result = run("export", "--format", "json", "-q", query)
    assert result.exit_code == 2 and result.stdout == ""  # before: every paper, exit 0
    assert "nothing to search for" in result.stderr and "--all" in result.stderr and result.stderr.count("\n") == 1


def test_export_to_file_never_overwrites_without_force(env, tmp_path):
    papers, db, run = env
    Store(db).update(papers[0], starred=True)
    target = tmp_path / "notes.md"
    first = run("export", "-o", str(target))
    assert first.exit_code == 0, first.output
    assert target.read_text().startswith("# Reading notes")
    assert f"`{papers[0].id}`" in target.read_text()
    second = run("export", "--format", "json", "-o", str(target))
    assert second.exit_code == 2
    assert second.output.strip().count("\n") == 0 and "--force" in second.output
    assert target.read_text().startswith("# Reading notes")
    third = run("export", "--format", "json", "-o", str(target), "--force")
    assert third.exit_code == 0
    assert json.loads(target.read_text())["papers"][0]["id"] == papers[0].id


def test_export_format_follows_the_files_extension_unless_given(env, tmp_path):
    papers, db, run = env
    Store(db).update(papers[0], starred=True)
    for name in ("refs.bib", "REFS.BIBTEX", "notes.markdown", "notes.txt", "data.json", "sheet.Csv", "refs.json",
                 "refs.csl.json"):  # fmt: skip
        fmt = ["--format", "bibtex"] if name == "refs.json" else []  # --format wins over the extension
        assert run("export", *fmt, "-o", str(tmp_path / name)).exit_code == 0, name
    for name in ("refs.bib", "REFS.BIBTEX", "refs.json"):
        assert [e.key for e in bibtexparser.parse_file(str(tmp_path / name)).entries] == ["paperdiffusion"]
    assert (tmp_path / "notes.markdown").read_text().startswith("# Reading notes")
    assert (tmp_path / "notes.txt").read_text().startswith("# Reading notes")  # an extension of no format
    assert json.loads((tmp_path / "data.json").read_text())["papers"][0]["id"] == papers[0].id
    assert next(csv.DictReader((tmp_path / "sheet.Csv").open(newline="")))["id"] == papers[0].id
    assert [item["id"] for item in json.loads((tmp_path / "refs.csl.json").read_text())] == ["paperdiffusion"]


def test_export_to_dash_writes_to_stdout(env, tmp_path, monkeypatch):
    papers, db, run = env
    Store(db).update(papers[0], starred=True)
    monkeypatch.chdir(tmp_path)
    result = run("export", "--format", "json", "-o", "-")
    assert result.exit_code == 0, result.output
    assert [p["id"] for p in json.loads(result.stdout)["papers"]] == [papers[0].id]
    assert not (tmp_path / "-").exists()


def test_export_to_standard_output_by_name_writes_where_it_goes(env, tmp_path):
    papers, db, run = env
    Store(db).update(papers[0], starred=True)
    expected = run("export").stdout.encode()
    command = [sys.executable, "-m", "readlist", "--papers", str(tmp_path / "papers.txt"), "--db", str(db), "export"]
    appended = tmp_path / "appended.md"
    for target in ("/dev/stdout", str(appended)):  # `-o /dev/stdout >> appended.md`, `-o appended.md >> appended.md`
        appended.write_bytes(b"KEEP\n")
        with open(appended, "ab") as stdout:
            done = subprocess.run([*command, "-o", target, "--force"], stdout=stdout, stderr=subprocess.PIPE)
        assert done.returncode == 0, done.stderr
        assert appended.read_bytes() == b"KEEP\n" + expected
    piped = subprocess.run([*command, "-o", "/dev/stdout"], capture_output=True)  # `-o /dev/stdout | wc -c`
    assert (piped.returncode, piped.stdout) == (0, expected), piped.stderr
    read_end, write_end = os.pipe()  # what bash passes for `-o >(gzip > notes.md.gz)`
    with subprocess.Popen([*command, "-o", f"/dev/fd/{write_end}"], pass_fds=(write_end,)) as proc:
        os.close(write_end)
        with open(read_end, "rb") as pipe:
            assert pipe.read() == expected
    assert proc.returncode == 0


@pytest.mark.parametrize("number", ["99999999999999999999", "9" * 5000], ids=["20 digits", "5000 digits"])
def test_export_to_a_descriptor_number_too_large_to_be_open_fails_in_one_line(env, number):
    papers, db, run = env
    Store(db).update(papers[0], starred=True)
    for name in (f"/dev/fd/{number}", f"/proc/self/fd/{number}"):
        result = run("export", "-o", name)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output[:300]
        assert result.stderr.endswith(": cannot write (Bad file descriptor)\n")


def test_export_never_writes_over_the_database_or_the_paper_file(env, tmp_path):
    papers, db, run = env
    Store(db).update(papers[0], starred=True)
    papers_path = tmp_path / "papers.txt"
    link = tmp_path / "link.json"
    link.symlink_to(db)
    (tmp_path / "db.json.bak-20250101T000000Z").write_text("{}")
    before = {path: path.read_bytes() for path in (db, papers_path)}
    for target in (db, link, papers_path, tmp_path / "db.json.lock", tmp_path / "db.json.bak-20250101T000000Z"):
        result = run("export", "-o", str(target), "--force")
        assert result.exit_code == 2, target
        assert result.output.count("\n") == 1 and result.output.startswith(f"readlist: {target}: is "), result.output
    assert {path: path.read_bytes() for path in before} == before and link.is_symlink()
    assert run("export", "-o", str(tmp_path / "db.json.md")).exit_code == 0  # only the name is alike


def test_export_of_missing_papers_says_why_there_is_nothing_to_export(env):
    _, _, run = env
    result = run("export", "-q", "is:missing")
    assert result.exit_code == 2 and "list --missing --json" in result.output and result.output.count("\n") == 1


def test_export_query_in_the_search_language(env):
    papers, db, run = env
    Store(db).update(papers[4], tags=["rl"])
    result = run("export", "--format", "json", "--query", "tag:rl")
    assert [p["id"] for p in json.loads(result.output)["papers"]] == [papers[4].id]
    bad = run("export", "--query", '"unclosed')
    assert bad.exit_code == 2 and bad.output.count("\n") == 1 and "--query" in bad.output


def test_export_rejects_all_with_query(env):
    _, _, run = env
    result = run("export", "--all", "--query", "x")
    assert result.exit_code == 2 and "exclude" in result.output


def test_related_lists_the_closest_paper_first(env):
    papers, _, run = env
    result = run("related", "#3")
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0].split()
    assert first[1:3] == ["4", papers[3].id]
    assert papers[2].id not in result.output
    rows = json.loads(run("related", papers[0].id, "--json").output)
    assert rows[0]["id"] == papers[1].id and 0 < rows[0]["similarity"] <= 1


def test_related_reads_the_cached_search_index_and_builds_nothing_else(env, tmp_path, monkeypatch):
    from readlist.core.search import postings

    papers, _, run = env
    first = run("related", "#1")  # builds the search index, once, and caches it
    assert first.exit_code == 0 and papers[1].id in first.output

    def no_build(*args, **kwargs):
        raise AssertionError("index built again")

    monkeypatch.setattr(postings, "build_rows", no_build)
    monkeypatch.setattr("readlist.core.search.build.build", no_build)  # what the cache builds with
    monkeypatch.setattr(RelatedIndex, "build", no_build)
    again = run("related", "#1")
    assert again.exit_code == 0 and again.output == first.output


def test_related_with_a_bad_reference_fails_in_one_line(env):
    _, _, run = env
    result = run("related", "#99")
    assert result.exit_code == 2 and result.output.count("\n") == 1


def test_merge_dry_run_then_merge_then_nothing_left(env, tmp_path):
    papers, db, run = env
    start = datetime(2025, 7, 1, tzinfo=UTC)
    desk = Store(db, now=clock(start))
    desk.update(papers[0], note="shared note")
    laptop_db = tmp_path / "laptop.json"
    laptop_db.write_bytes(db.read_bytes())
    laptop = Store(laptop_db, now=clock(start + timedelta(hours=1)))
    laptop.update(papers[0], note="laptop edit")
    laptop.update(papers[4], status="read")
    desk = Store(db, now=clock(start + timedelta(hours=2)))
    desk.update(papers[0], note="desk edit")

    before = db.read_bytes()
    dry = run("merge", str(laptop_db), "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert papers[4].id in dry.output and "dry run" in dry.output
    assert db.read_bytes() == before

    merged = run("merge", str(laptop_db))
    assert merged.exit_code == 0, merged.output
    result = Store(db)
    note = result.get(papers[0].id)
    assert "laptop edit" in note.note and "desk edit" in note.note and "conflict" in note.tags
    assert result.get(papers[4].id).status == "read"
    assert len(result.events()) == 4  # shared note, laptop's two changes, desk's edit

    again = run("merge", str(laptop_db))
    assert again.exit_code == 0 and "Nothing to merge" in again.output


def merge_a_laptop_copy(env, tmp_path, **laptop) -> None:
    """Star paper 1 here, then merge a laptop's database that changed paper 2 (`laptop`: its changes)."""
    papers, db, run = env
    Store(db).update(papers[0], starred=True)
    laptop_db = tmp_path / "laptop.json"
    Store(laptop_db).update(papers[1], **(laptop or {"status": "read"}))
    assert run("merge", str(laptop_db)).exit_code == 0


def test_undo_takes_a_merge_back_once_nothing_made_since_is_left_to_undo(env, tmp_path):
    papers, db, run = env
    merge_a_laptop_copy(env, tmp_path, status="read", note="from the laptop")
    assert run("star", "#3").exit_code == 0
    assert "undid star" in run("undo").stdout  # the change made after the merge comes first
    result = run("undo")
    assert result.exit_code == 0 and result.stdout.startswith("undid the merge: "), result.output
    kept = next(tmp_path.glob("db.json.bak-*-merge-undone"))
    assert str(kept) in result.stdout and Store(kept).get(papers[1].id).note == "from the laptop"
    store = Store(db)  # as before the merge
    assert store.get(papers[0].id).starred and not store.get(papers[2].id).starred
    assert store.get(papers[1].id).status == "unread" and not store.get(papers[1].id).note
    assert "undid star" in run("undo").stdout  # then what was done before the merge, as before it
    assert run("undo").exit_code == 1 and not Store(db).get(papers[0].id).starred


def test_undo_names_the_backup_of_a_merge_it_cannot_take_back_itself(env, tmp_path):
    papers, db, run = env
    merge_a_laptop_copy(env, tmp_path)
    backup = next(tmp_path.glob("db.json.bak-*-merge"))
    backup.write_bytes(backup.read_bytes().replace(b'"starred":true', b'"starred":false'))  # no longer that file
    result = run("undo")
    assert result.exit_code == 1 and f"copy {backup} over {db}" in result.stdout
    assert Store(db).get(papers[0].id).starred and Store(db).get(papers[1].id).status == "read"


def test_undo_leaves_a_merged_database_made_read_only_as_it_is(env, tmp_path):
    papers, db, run = env
    merge_a_laptop_copy(env, tmp_path)
    db.chmod(0o444)  # as a change is refused, so is taking the merge back
    result = run("undo")
    assert (
        result.exit_code == 2
        and result.stderr == f"readlist: {db}: cannot take the merge back (the file is read-only)\n"
    )
    assert Store(db).get(papers[1].id).status == "read" and not list(tmp_path.glob("db.json.bak-*-merge-undone"))


def test_merge_of_a_missing_or_broken_file_fails_in_one_line(env, tmp_path):
    _, db, run = env
    missing = run("merge", str(tmp_path / "nope.json"))
    assert missing.exit_code == 2 and missing.output.count("\n") == 1 and "no such file" in missing.output
    broken = tmp_path / "broken.json"
    broken.write_text('{"meta": {not json')  # readlist's, damaged
    result = run("merge", str(broken))
    assert result.exit_code == 2 and "not a usable readlist database" in result.output
    assert not db.exists()


def test_merge_names_a_foreign_file_plainly_and_takes_what_a_file_set_aside_still_holds(env, tmp_path):
    papers, db, run = env
    text = tmp_path / "papers-v1.txt"
    text.write_text("A paper file given by mistake.\n")
    foreign = run("merge", str(text))
    assert foreign.exit_code == 2 and foreign.output.count("not a readlist database") == 1
    laptop_db = tmp_path / "laptop.json"
    laptop = Store(laptop_db)
    laptop.update(papers[1], note="written on the laptop")
    laptop.update(papers[2], starred=True)
    data = json.loads(laptop_db.read_text(encoding="utf-8"))
    for doc in data["annotations"].values():
        if doc.get("starred"):  # written only when starred
            doc["starred"] = "yes"  # what set the file aside
    laptop_db.write_text(json.dumps(data), encoding="utf-8")
    merged = run("merge", str(laptop_db))
    assert merged.exit_code == 0, merged.output
    assert Store(db).get(papers[1].id).note == "written on the laptop"


def test_merging_back_an_earlier_conflict_is_not_called_a_new_one(env, tmp_path):
    papers, db, run = env
    start = datetime(2025, 7, 1, tzinfo=UTC)
    Store(db, now=clock(start)).update(papers[0], note="shared")
    laptop_db = tmp_path / "laptop.json"
    laptop_db.write_bytes(db.read_bytes())
    Store(laptop_db, now=clock(start + timedelta(hours=1))).update(papers[0], note="laptop")
    Store(db, now=clock(start + timedelta(hours=2))).update(papers[0], note="desk")
    assert "edited on both sides" in run("merge", str(laptop_db)).output  # the desk now holds both
    back = run("merge", str(db), db_path=laptop_db)
    assert back.exit_code == 0, back.output
    assert "edited on both sides" not in back.output and "0 note conflict(s)" in back.output


def test_merging_a_database_into_itself_is_refused(env):
    papers, db, run = env
    Store(db).update(papers[0], starred=True)
    before = db.read_bytes()
    result = run("merge", str(db))
    assert result.exit_code == 2 and "itself" in result.output
    assert db.read_bytes() == before


def test_related_shows_the_users_own_titles(env):
    papers, db, run = env
    Store(db).update(papers[3], title="Rewiring, my summary")
    assert "Rewiring, my summary" in run("related", "#3").output
    rows = json.loads(run("related", "#3", "--json").output)
    assert rows[0]["title"] == "Rewiring, my summary"
    [listed] = [row for row in json.loads(run("list", "--json").output) if row["id"] == rows[0]["id"]]
    assert rows[0] == listed | {"similarity": rows[0]["similarity"]}  # the one paper shape (it lacked the marks)


def test_the_merge_report_names_each_paper_by_its_number_and_title(env, tmp_path):
    from readlist.core.papers.paper import Paper

    papers, db, run = env
    Store(db).update(papers[0], starred=True)
    laptop_db = tmp_path / "laptop.json"
    laptop = Store(laptop_db)
    laptop.update(papers[1], status="read", tags=["later"])
    elsewhere = Paper(id="0123456789ab", index=1, text="We study routing in sparse mixtures of experts for speech.")
    laptop.update(elsewhere, starred=True)  # a paper of another list
    for args in (["--dry-run"], []):
        lines = run("merge", str(laptop_db), *args).stdout.splitlines()
        at = lines.index(f"#2  {papers[1].id}  {papers[1].title}")  # before: the id alone
        assert lines[at + 1] == "    new here: read, tags [later]"
        [missing] = [line for line in lines if line.startswith(elsewhere.id)]
        assert missing.endswith("(not in this paper list)") and "routing" in missing.lower()
        assert lines[lines.index(missing) + 1] == "    new here: starred"
