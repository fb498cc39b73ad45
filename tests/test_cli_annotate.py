"""The annotation commands: star, unstar, status, note, tag, undo, log, and what list/show now print."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from readlist.cli import cli
from readlist.core.papers.reader import read_papers
from readlist.core.store.store import Store

PAPERS = """Three papers for the tests

Sparse routing for attention
We study sparse attention for long documents and show that learned routing matches dense attention.

Table questions
A new benchmark for table question answering reveals that retrieval errors dominate model failures.

Grasping by diffusion
Diffusion policies for robot grasping transfer from simulation when trained with randomised friction.
"""


@pytest.fixture
def run(tmp_path):
    papers = tmp_path / "papers.txt"
    papers.write_text(PAPERS, encoding="utf-8")
    db = tmp_path / "data" / "readlist.json"

    def invoke(*args: str, env: dict | None = None, input: str | bytes | None = None):
        args = ("--papers", str(papers), "--db", str(db), *args)
        return CliRunner().invoke(cli, args, env=env, input=input, color=True)  # colour codes kept, as on a terminal

    invoke.db = db
    invoke.ids = [paper.id for paper in read_papers(papers).papers]
    return invoke


def listed(run, *args):
    result = run("list", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_list_json_written_paper_by_paper_is_the_text_of_one_json_dump(run):
    from readlist.core.text.normalize import escape_controls_in_json

    run("star", "#1")
    run("note", "#2", "--text", "a \x1b[31mred\x1b[0m note ★ with a tab\t")
    out = run("list", "--json").stdout
    papers = json.loads(out)
    assert papers[0]["starred"] and papers[1]["note"].startswith("a \x1b[31mred")
    assert out == escape_controls_in_json(json.dumps(papers, ensure_ascii=False, indent=2)) + "\n"
    assert run("list", "--json", "--tag", "none").stdout == "[]\n"


def test_star_unstar_status_and_list_filters(run):
    assert run("star", "#1").exit_code == 0
    assert run("status", "#2", "reading").exit_code == 0
    assert run("status", run.ids[2][:6], "read").exit_code == 0
    assert [p["index"] for p in listed(run, "--starred")] == [1]
    assert [p["index"] for p in listed(run, "--status", "reading")] == [2]
    assert [p["index"] for p in listed(run, "--status", "read")] == [3]
    assert run("unstar", "#1").exit_code == 0
    assert listed(run, "--starred") == []
    text = run("list").stdout.splitlines()
    assert text[1].split()[2:4] == ["reading", "Table"]


def test_list_and_show_include_annotations_in_json(run):
    run("tag", "#1", "+ml", "+Long context")
    run("note", "#1", "--text", "Read **twice**.")
    paper = listed(run)[0]
    assert (paper["starred"], paper["status"], paper["tags"], paper["note"]) == (
        False,
        "unread",
        ["ml", "Long context"],
        "Read **twice**.",
    )
    shown = json.loads(run("show", "#1", "--json").stdout)
    assert shown["tags"] == ["ml", "Long context"] and shown["note"] == "Read **twice**."
    text = run("show", "#1").stdout
    assert "tags: ml, Long context" in text and text.rstrip().endswith("Read **twice**.")
    assert [p["index"] for p in listed(run, "--tag", "ML")] == [1]
    assert listed(run, "--tag", "ml", "--tag", "other") == []


def test_tag_adds_and_removes(run):
    run("tag", "#2", "+a", "b", "+c")
    result = run("tag", "#2", "-b", "-A")
    assert result.exit_code == 0, result.output
    assert run("tag", "#2").stdout.split() == ["c"]
    result = run("tag", "#2", "+")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1


def test_note_text_append_and_print(run):
    run("note", "#3", "--text", "first line")
    run("note", "#3", "--append", "second line")
    assert run("note", "#3").stdout == "first line\nsecond line\n"
    run("note", "#3", "--text", "")
    assert run("note", "#3").stdout == ""
    result = run("note", "#3", "--text", "x", "--append", "y")
    assert result.exit_code == 2 and "only one of" in result.stderr


def test_note_appends_every_text_given_in_order_and_takes_dash_from_standard_input(run):
    assert run("note", "#1", "--append", "first", "--append", "second").exit_code == 0
    assert run("note", "#1").stdout == "first\nsecond\n"
    assert run("undo").exit_code == 0 and run("note", "#1").stdout == ""  # one step
    piped = run("note", "#1", "--append", "before", "--append", "-", "--append", "after", input="from\nstdin\n")
    assert piped.exit_code == 0, piped.output
    assert run("note", "#1").stdout == "before\nfrom\nstdin\nafter\n"
    assert run("note", "#1", "--text", "-", input="café\n".encode()).exit_code == 0
    assert run("note", "#1").stdout == "café\n"
    twice = run("note", "#1", "--append", "-", "--append", "-", input="x")
    assert twice.exit_code == 2 and run("note", "#1").stdout == "café\n"


def test_note_edit_runs_editor_with_argument_list(run, tmp_path):
    script = tmp_path / "my editor.py"
    script.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[-1])\np.write_text(p.read_text() + 'edited in editor\\n')\n"
    )
    run("note", "#1", "--text", "before")
    editor = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    result = run("note", "#1", "--edit", env={"EDITOR": editor})
    assert result.exit_code == 0, result.output
    assert run("note", "#1").stdout == "before\nedited in editor\n"
    failed = run("note", "#1", "--edit", env={"EDITOR": "false"})
    assert failed.exit_code == 2 and "the note is unchanged" in failed.stderr
    missing = run("note", "#1", "--edit", env={"EDITOR": "/no/such/editor --wait"})
    assert missing.exit_code == 2 and "cannot run the editor" in missing.stderr
    assert run("note", "#1").stdout == "before\nedited in editor\n"


def test_a_note_longer_than_a_note_may_be_is_refused_in_one_line_and_the_text_typed_in_the_editor_kept(run, tmp_path):
    assert run("note", "#1", "--text", "kept").exit_code == 0
    refused = (
        "readlist: a note can hold at most 1,000,000 characters, this one would have 1,000,001; the note is unchanged"
    )
    for args, given in [
        (("--text", "x" * 1_000_001), None),
        (("--text", "-"), "x" * 1_000_001 + "\n"),
        (("--append", "y" * 999_996), None),  # "kept", a line break and these
    ]:
        result = run("note", "#1", *args, input=given)
        assert (result.exit_code, result.output.strip()) == (2, refused)
    script = tmp_path / "editor.py"
    script.write_text("import sys, pathlib\npathlib.Path(sys.argv[-1]).write_text('z' * 1_000_001)\n")
    edited = run("note", "#1", "--edit", env={"EDITOR": f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"})
    assert edited.exit_code == 2
    assert edited.output.startswith(f"{refused}, your text is kept in ")
    assert Path(edited.output.rsplit(" kept in ", 1)[1].strip()).read_text() == "z" * 1_000_001
    assert run("note", "#1").stdout == "kept\n"
    assert run("note", "#1", "--append", "y" * 999_995).exit_code == 0  # up to the limit


def test_the_log_holds_what_a_note_change_changed(run):
    run("note", "#1", "--text", "first line")
    run("note", "#1", "--append", "second line")
    [entry] = json.loads(run("log", "--json", "--limit", "1").stdout)
    assert (entry["before"], entry["after"]) == ({}, {})
    assert entry["note_edit"] | {"was": "", "is": ""} == {
        "at": 10,
        "cut": "",
        "put": "\nsecond line",
        "was": "",
        "is": "",
    }
    run("undo")
    assert run("log", "--limit", "1").stdout.split()[1:3] == ["undo", "note"]


def test_note_edit_reads_a_note_saved_in_the_locales_encoding_and_never_loses_one_it_cannot_read(
    run, tmp_path, monkeypatch
):
    import locale
    from pathlib import Path

    script = tmp_path / "latin1 editor.py"
    script.write_text("import sys, pathlib\npathlib.Path(sys.argv[-1]).write_bytes('café crème'.encode('latin-1'))\n")
    editor = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    monkeypatch.setattr(locale, "getencoding", lambda: "ISO-8859-1")
    result = run("note", "#1", "--edit", env={"EDITOR": editor})
    assert result.exit_code == 0, result.output
    assert run("note", "#1").stdout == "café crème\n"
    monkeypatch.setattr(locale, "getencoding", lambda: "UTF-8")
    failed = run("note", "#1", "--edit", env={"EDITOR": editor})
    assert failed.exit_code == 2 and "the note is unchanged" in failed.stderr
    kept = Path(failed.stderr.split()[-1])
    assert kept.read_bytes() == "café crème".encode("latin-1")  # what was typed is still there
    kept.unlink()


@pytest.mark.slow
def test_parallel_appends_to_one_note_all_land(tmp_path):
    import subprocess

    env = {**__import__("os").environ, "READLIST_DB": str(tmp_path / "db.json")}
    loop = "for i in 1 2 3 4 5 6; do {exe} -m readlist note '#1' --append $0$i >/dev/null; done"
    script = loop.format(exe=shlex.quote(sys.executable))
    workers = [subprocess.Popen(["sh", "-c", script, side], env=env) for side in "ab"]
    assert [w.wait(timeout=120) for w in workers] == [0, 0]
    note = subprocess.run([sys.executable, "-m", "readlist", "note", "#1"], env=env, capture_output=True, text=True)
    assert sorted(note.stdout.split()) == sorted(f"{side}{i}" for side in "ab" for i in range(1, 7))


def test_tag_changes_apply_in_order_to_the_tags_stored_now(run):
    assert run("tag", "#1", "keep", "+gone").exit_code == 0
    assert run("tag", "#1", "-gone", "+x", "-X", "+y").exit_code == 0
    assert run("tag", "#1").stdout.split() == ["keep", "y"]


def test_note_edit_keeps_a_change_made_while_the_editor_was_open(run, tmp_path):
    script = tmp_path / "slow editor.py"
    script.write_text(  # meanwhile, another readlist appends to the note
        "import os, subprocess, sys, pathlib\n"
        "subprocess.run([sys.executable, '-m', 'readlist', 'note', '#1', '--append', 'from elsewhere'], check=True)\n"
        "pathlib.Path(sys.argv[-1]).write_text('mine\\n')\n"
    )
    run("note", "#1", "--text", "before")
    editor = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    result = run(
        "note",
        "#1",
        "--edit",
        env={"EDITOR": editor, "READLIST_DB": str(run.db), "READLIST_PAPERS": str(tmp_path / "papers.txt")},
    )
    assert result.exit_code == 0, result.output
    assert "both versions are kept" in result.stderr
    note = run("note", "#1").stdout
    assert note.startswith("mine\n") and note.rstrip().endswith("before\nfrom elsewhere")


def test_a_newer_readlists_database_put_in_place_during_a_command_is_left_exactly_as_it_is(run, tmp_path):
    run("note", "#1", "--text", "before")
    data = json.loads(run.db.read_text(encoding="utf-8"))
    data["meta"]["1"]["schema_version"] = 5
    next(iter(data["annotations"].values()))["note"] = "written by a newer readlist"
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(data), encoding="utf-8")
    written = newer.read_bytes()
    script = tmp_path / "editor.py"
    script.write_text(  # while the note is edited, a newer readlist replaces the file atomically
        f"import os, pathlib, sys\nos.replace({str(newer)!r}, {str(run.db)!r})\n"
        "pathlib.Path(sys.argv[-1]).write_text('mine\\n')\n"
    )
    editor = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    edited = run("note", "#1", "--edit", env={"EDITOR": editor})
    starred = run("star", "#2")  # and a command started after it
    for result in (edited, starred):
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and "written by a newer readlist (schema 5" in result.stderr
    assert edited.stderr.startswith(f"readlist: cannot save {run.db}: written by a newer readlist (schema 5")
    assert edited.stderr.endswith("; the change was not saved\n")
    assert run.db.read_bytes() == written  # neither moved aside nor written over
    assert sorted(p.name for p in run.db.parent.iterdir()) == sorted(["readlist.json", "readlist.json.lock"])


def test_note_edit_prefers_visual_to_editor(run, tmp_path):
    script = tmp_path / "visual.py"
    script.write_text("import sys, pathlib\npathlib.Path(sys.argv[-1]).write_text('from visual\\n')\n")
    visual = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    result = run("note", "#1", "--edit", env={"VISUAL": visual, "EDITOR": "false"})
    assert result.exit_code == 0, result.output
    assert run("note", "#1").stdout == "from visual\n"
    broken = run("note", "#1", "--edit", env={"VISUAL": "'unclosed"})
    assert broken.exit_code == 2 and "$VISUAL" in broken.stderr and "unchanged" in broken.stderr
    assert run("note", "#1").stdout == "from visual\n"


def test_undo_and_log(run):
    run("star", "#1")
    run("status", "#1", "read")
    log = run("log").stdout.splitlines()
    assert len(log) == 2 and "status unread → read" in log[0] and "#1 Sparse routing" in log[0]
    result = run("undo")
    assert result.exit_code == 0 and result.stdout.startswith("undid status unread → read")
    assert listed(run)[0]["status"] == "unread"
    run("undo")
    assert listed(run)[0]["starred"] is False
    nothing = run("undo")
    assert nothing.exit_code == 1 and nothing.stdout == "nothing to undo\n"  # a loop of undos ends
    entries = json.loads(run("log", "--json", "--limit", "1").stdout)
    assert len(entries) == 1 and entries[0]["action"] == "undo"


@pytest.mark.parametrize(
    "args",
    [
        ("status", "#1", "finished"),
        ("star", "#9"),
        ("list", "--status", "done"),
        ("log", "--limit", "0"),
        ("bogus",),  # mistakes click itself catches, too
        ("--bogus",),
        ("list", "--bogus"),
        ("search",),
        ("status", "#1"),
        ("export", "--format", "txt"),
    ],
)
def test_errors_are_one_line_with_status_2(run, args):
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith("readlist: ") and result.stderr.count("\n") == 1


def test_a_command_line_mistake_names_the_command_and_its_help(run):
    assert run("bogus").stderr == "readlist: no such command 'bogus' (see readlist --help)\n"
    result = run("search")
    assert result.stderr == "readlist: search: missing argument 'QUERY...' (see readlist search --help)\n"


def test_damaged_database_is_reported_on_stderr_in_one_line(run):
    run.db.parent.mkdir(parents=True)
    run.db.write_bytes(b'{"meta": {not json')  # readlist's, damaged
    result = run("list")
    assert result.exit_code == 0
    assert result.stderr.startswith("readlist: ") and "was damaged" in result.stderr
    assert result.stderr.count("\n") == 1
    assert next(run.db.parent.glob("readlist.json.corrupt-*")).read_bytes() == b'{"meta": {not json'


def test_failed_save_fails_the_command(run, monkeypatch):
    from readlist.core.files import atomic as atomic_storage

    def replace(src, dst):
        raise OSError(28, "No space left on device")

    run("star", "#2")
    monkeypatch.setattr(atomic_storage.os, "replace", replace)
    result = run("star", "#1")
    assert result.exit_code == 2
    assert "No space left on device" in result.stderr and "not saved" in result.stderr
    monkeypatch.undo()
    assert [p["index"] for p in listed(run, "--starred")] == [2]


def test_reading_commands_create_no_database(run):
    assert run("list").exit_code == 0
    assert run("show", "#1").exit_code == 0
    assert not run.db.parent.exists()


def test_missing_papers_are_listed_and_kept(run, tmp_path):
    run("note", "#3", "--text", "about grasping")
    papers = tmp_path / "papers.txt"
    papers.write_text(PAPERS.rsplit("\n\nGrasping", 1)[0] + "\n", encoding="utf-8")
    result = run("list", "--missing")
    assert result.exit_code == 0
    assert "1 annotated paper(s) are not in" in result.stderr
    assert result.stdout.startswith(run.ids[2]) and "Diffusion policies" in result.stdout
    assert json.loads(run("list", "--missing", "--json").stdout)[0]["note"] == "about grasping"
    assert len(listed(run)) == 2


def test_title_prints_sets_and_clears_the_users_own_title(run, tmp_path):
    own = run("title", "#2").stdout.strip()
    assert own
    result = run("title", "#2", "My", "name  for", "it")
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().endswith("My name for it")
    assert run("title", "#2").stdout.strip() == "My name for it"
    assert "My name for it" in run("list").stdout
    assert run("search", "title:name").stdout.split()[1] == "2"
    assert run("title", "#2", "--clear").exit_code == 0
    assert run("title", "#2").stdout.strip() == own
    run("title", "#2", "X")
    run("title", "#2", *own.split())  # the paper's own title again: nothing of the user's to keep
    assert json.loads(run("list", "--json").stdout)[1]["title"] == own
    stored = Store(tmp_path / "data" / "readlist.json").get(json.loads(run("list", "--json").stdout)[1]["id"])
    assert stored.title is None  # no copy of the paper's own title
    assert run("title", "#2").stdout.strip() == own
    result = run("title", "#2", "a\x1b[31mred\x07 title")
    assert "\x1b" not in run("list", "--json").stdout and "ared title" in run("title", "#2").stdout
    result = run("title", "#2", "x", "--clear")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1


def test_a_database_path_naming_another_file_is_an_error_and_the_file_is_untouched(tmp_path):
    from readlist.cli import cli

    thesis = tmp_path / "thesis.md"
    thesis.write_text("# My thesis\n\nChapter one.\n", encoding="utf-8")
    for args in (["list", "--starred"], ["star", "#1"]):
        result = CliRunner().invoke(cli, ["--db", str(thesis), *args])
        assert result.exit_code == 2 and "not a readlist database" in result.stderr
        assert "Traceback" not in result.output and len(result.stderr.strip().splitlines()) == 1
    assert thesis.read_text(encoding="utf-8") == "# My thesis\n\nChapter one.\n"
    assert not [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name or ".bak-" in p.name]


def test_bytes_that_are_not_utf8_in_arguments_are_saved_as_replacement_characters(run):
    bad = b"caf\xe9".decode("utf-8", "surrogateescape")  # as the shell hands them over
    assert run("note", "#1", "--text", bad).exit_code == 0
    assert run("tag", "#1", bad).exit_code == 0
    assert run("note", "#1").stdout == "caf\ufffd\n"
    assert run("tag", "#1").stdout == "caf\ufffd\n"


def test_a_note_prints_with_its_tabs(run):
    assert run("note", "#1", "--text", "- item\n\t- nested\x1b[31m").exit_code == 0
    assert run("note", "#1").stdout == "- item\n\t- nested\n"


def test_undoing_a_title_names_the_paper_by_the_title_it_has_again(run):
    run("title", "#1", "X:", "my", "own", "title")
    result = run("undo")
    assert result.stdout == "undid title → 'X: my own title' on 'Sparse routing for attention'\n"


def test_the_log_says_what_title_was_given(run):
    run("title", "#1", "My", "own", "name")
    run("title", "#1", "--clear")
    log = run("log", "--limit", "2").stdout.splitlines()
    assert "title: back to the paper's own" in log[0] and "title → 'My own name'" in log[1]


def test_note_edit_without_an_editor_or_a_terminal_is_an_error_not_a_wait(run):
    result = run("note", "#1", "--edit", env={"VISUAL": "", "EDITOR": ""})
    assert result.exit_code == 2 and "no $VISUAL or $EDITOR" in result.stderr


def test_output_cut_short_by_a_closed_pipe_ends_quietly_not_as_no_match(tmp_path):
    import signal
    import subprocess

    papers = tmp_path / "many.txt"
    papers.write_text("\n\n".join(f"We study problem number {n} of graph learning in depth." for n in range(3000)))
    env = {**__import__("os").environ, "READLIST_DB": str(tmp_path / "db.json")}
    for args in (["list"], ["list", "--json"], ["search", "graph", "-n", "0"]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "readlist", "--papers", str(papers), *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout.readline()  # what `head -1` reads
        proc.stdout.close()
        assert proc.wait(timeout=60) == -signal.SIGPIPE  # the shell's 141, as for other tools; never 1
        assert proc.stderr.read() == b""


def test_annotations_missing_from_the_list_are_mentioned_once_not_by_every_command(run, tmp_path):
    assert run("star", "#1").exit_code == 0
    (tmp_path / "papers.txt").unlink()  # its list gone: the paper is missing (not while a list holds it)
    other = tmp_path / "other.txt"
    other.write_text("We propose a different paper altogether, about compilers and their passes.\n")
    first = CliRunner().invoke(cli, ["--papers", str(other), "--db", str(run.db), "list"])
    assert "1 annotated paper(s) are not in" in first.stderr
    again = CliRunner().invoke(cli, ["--papers", str(other), "--db", str(run.db), "list"])
    assert again.exit_code == 0 and again.stderr == ""
    missing = CliRunner().invoke(cli, ["--papers", str(other), "--db", str(run.db), "list", "--missing"])
    assert run.ids[0] in missing.stdout  # still there to be found


def test_a_missing_paper_can_be_shown_and_its_annotations_moved_onto_the_paper_it_became(run, tmp_path):
    assert run("star", "#1").exit_code == 0 and run("status", "#1", "read").exit_code == 0
    assert run("note", "#1", "--text", "keep [/bold] this").exit_code == 0
    (tmp_path / "papers.txt").unlink()  # its list gone: the paper is missing (not while a list holds it)
    old = run.ids[0]
    rewritten = tmp_path / "v2.txt"
    rewritten.write_text(PAPERS.replace("We study sparse attention", "Rewritten: we examine routed attention"))

    def v2(*args):
        return CliRunner().invoke(cli, ["--papers", str(rewritten), "--db", str(run.db), *args])

    assert old in v2("list", "--missing").stdout
    shown = v2("show", old[:6])
    assert shown.exit_code == 0 and "not in this paper list" in shown.stdout and "keep [/bold] this" in shown.stdout
    entry = json.loads(v2("search", "is:missing", "--json").stdout)[0]
    assert entry["id"] == old and entry["title"] and entry["missing"] is True
    refused = v2("note", old)
    assert refused.exit_code == 2 and "is a missing paper" in refused.stderr
    short = v2("reattach", old[:2], "#1")
    assert short.exit_code == 2 and "at least 4 characters" in short.stderr
    moved = v2("reattach", old[:5], "#1")
    assert moved.exit_code == 0, moved.output
    log = v2("log").stdout
    assert "annotations moved here" in log and "annotations moved away" in log
    assert json.loads(v2("stats", "--json").stdout)["read_per_day"][-1]["read"] == 1  # read once, today
    data = json.loads(v2("show", "#1", "--json").stdout)
    assert (data["starred"], data["status"], data["note"]) == (True, "read", "keep [/bold] this")
    assert data["read_at"] and v2("list", "--missing").stdout == ""
    assert v2("undo").exit_code == 0  # one step: back on the missing paper
    assert old in v2("list", "--missing").stdout and json.loads(v2("show", "#1", "--json").stdout)["note"] == ""


def test_reattach_onto_a_paper_with_annotations_of_its_own_joins_them_and_undo_parts_them_again(run, tmp_path):
    from readlist.core.papers.reader import parse_text

    assert run("note", "#1", "--text", "first thoughts").exit_code == 0
    assert run("tag", "#1", "+method").exit_code == 0
    (tmp_path / "papers.txt").unlink()  # its list gone: the paper is missing (not while a list holds it)
    fixed = tmp_path / "v2.txt"
    fixed.write_text(PAPERS.replace("learned routing matches", "learned routing closely matches"))

    def v2(*args):
        return CliRunner().invoke(cli, ["--papers", str(fixed), "--db", str(run.db), *args])

    assert "re-attached" in v2("list").stderr
    # A window still showing the old text annotated the paper again under its old id (as readlist did).
    Store(run.db).update(parse_text(PAPERS).papers[0], starred=True, note="second thoughts", tags=["later"])
    old = run.ids[0]
    assert old in v2("list", "--missing").stdout
    joined = v2("reattach", old, "#1")
    assert joined.exit_code == 0, joined.output  # before: refused, "#1 has annotations of its own"
    assert joined.stdout.startswith(f"joined the annotations of {old} with those of #1; both notes kept")
    data = json.loads(v2("show", "#1", "--json").stdout)
    assert "first thoughts" in data["note"] and "second thoughts" in data["note"] and data["starred"]
    assert set(data["tags"]) == {"method", "later", "conflict"} and v2("list", "--missing").stdout == ""
    assert v2("undo").exit_code == 0  # one step: both records as they were
    data = json.loads(v2("show", "#1", "--json").stdout)
    assert (data["note"], data["tags"], data["starred"]) == ("first thoughts", ["method"], False)
    assert json.loads(v2("show", old, "--json").stdout)["note"] == "second thoughts"


def test_two_paper_files_holding_versions_of_one_paper_leave_its_annotations_where_they_are(run, tmp_path):
    assert run("note", "#1", "--text", "kept").exit_code == 0
    other = tmp_path / "v2.txt"
    other.write_text(PAPERS.replace("learned routing matches", "learned routing closely matches"))

    def on(path, *args):
        return CliRunner().invoke(cli, ["--papers", str(path), "--db", str(run.db), *args])

    logged = on(other, "log", "--json").stdout
    for _ in range(2):
        for path in (tmp_path / "papers.txt", other):
            result = on(path, "list", "--json")
            assert result.exit_code == 0 and result.stderr == ""  # never re-attached while the first file exists
            assert json.loads(result.stdout)[0]["note"] == ("kept" if path != other else "")
            assert on(path, "list", "--missing").stdout == ""  # held by the first list: missing from neither
    assert on(other, "log", "--json").stdout == logged  # nothing new logged
    (tmp_path / "papers.txt").unlink()  # the first file gone: the annotations go to the version still read
    assert "re-attached" in on(other, "list").stderr
    assert json.loads(on(other, "list", "--json").stdout)[0]["note"] == "kept"


def test_the_log_names_a_paper_whose_text_changed_by_its_place_in_the_list(run, tmp_path):
    assert run("star", "#1").exit_code == 0
    (tmp_path / "papers.txt").unlink()  # its list gone: the paper is missing (not while a list holds it)
    fixed = tmp_path / "v2.txt"
    fixed.write_text(PAPERS.replace("learned routing matches", "learned routing closely matches"))
    result = CliRunner().invoke(cli, ["--papers", str(fixed), "--db", str(run.db), "log"])
    assert "re-attached" in result.stderr
    star = [line for line in result.stdout.splitlines() if " star " in f" {line} "]
    assert star and "#1 " in star[0] and "not in this paper list" not in result.stdout


def test_an_ambiguous_id_prefix_is_said_to_be_ambiguous_even_when_a_missing_paper_shares_it(run, tmp_path):
    from readlist.core.text.normalize import paper_id

    prefixes: dict[str, list[str]] = {}
    for n in range(10_000):  # three papers whose ids start alike
        text = f"Paper number {n} studies graph learning with a distinct method of its own."
        prefixes.setdefault(paper_id(text)[:4], []).append(text)
    shared, alike = next((key, texts) for key, texts in prefixes.items() if len(texts) >= 3)
    first, rest = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(alike[0])
    rest.write_text("\n\n".join(alike[1:3]))
    CliRunner().invoke(cli, ["--papers", str(first), "--db", str(run.db), "note", "#1", "--text", "kept"])
    shown = CliRunner().invoke(cli, ["--papers", str(rest), "--db", str(run.db), "show", shared])
    assert shown.exit_code == 2 and "ambiguous" in shown.stderr
    starred = CliRunner().invoke(cli, ["--papers", str(rest), "--db", str(run.db), "star", shared])
    assert starred.exit_code == 2 and "ambiguous" in starred.stderr


def test_escape_codes_typed_into_tags_and_titles_leave_nothing_behind(run):
    assert run("tag", "#1", "+t\x1b[31mred").exit_code == 0
    assert run("title", "#2", "X \x1b]0;pwned\x07 y").exit_code == 0
    listed = json.loads(run("list", "--json").stdout)
    assert listed[0]["tags"] == ["tred"] and listed[1]["title"] == "X y"


def test_a_missing_paper_shows_its_latex_as_the_list_did(run, tmp_path):
    latex = tmp_path / "latex.txt"
    latex.write_text(r"We bound the regret of $\epsilon$-greedy exploration, cutting it by 65\% on bandit benchmarks.")
    CliRunner().invoke(cli, ["--papers", str(latex), "--db", str(run.db), "star", "#1"])
    paper_id = CliRunner().invoke(cli, ["--papers", str(latex), "list"]).stdout.split()[1]
    latex.unlink()  # its list gone: a missing paper
    shown = run("show", paper_id)
    assert shown.exit_code == 0, shown.output
    assert "ε-greedy" in shown.stdout and "65%" in shown.stdout and "\\epsilon" not in shown.stdout


def test_output_the_terminal_cannot_encode_prints_as_lookalikes_and_a_change_is_made_once(tmp_path):
    import os
    import subprocess

    papers = tmp_path / "papers.txt"
    papers.write_text(PAPERS, encoding="utf-8")
    env = {**os.environ, "READLIST_DB": str(tmp_path / "db.json"), "READLIST_PAPERS": str(papers)}

    def readlist(*args, encoding="latin-1"):
        command = [sys.executable, "-m", "readlist", *args]
        return subprocess.run(command, env=env | {"PYTHONIOENCODING": encoding}, capture_output=True, timeout=60)

    changes = (["star", "#1"], ["status", "#1", "read"], ["note", "#1", "--append", "once"])
    for args in (*changes, ["list"], ["stats"], ["log"], ["search", "routing"], ["show", "#1"]):
        result = readlist(*args)
        assert result.returncode == 0 and b"Traceback" not in result.stderr, (args, result.stderr)
        assert b"?" not in result.stdout
    assert readlist("note", "#1").stdout == b"once\n"  # saved once, not again by a retry
    assert b"*" in readlist("list").stdout and b"unread -> read" in readlist("log").stdout
    assert b"#" * 10 + b"-" * 20 in readlist("stats").stdout  # the progress bar: 1 of 3 read
    assert "★".encode() in readlist("list", encoding="ascii").stdout  # an ASCII terminal still gets UTF-8


WIDE = """Stars ★ and ε in titles

Robust ε-greedy ★ exploration
We bound the regret of ε-greedy exploration for bandits, with 中文 and café in the abstract text.

Graph routing for bandits
A study of routing for contextual bandits that reveals exploration errors dominate regret.

Table questions
A new benchmark for table question answering reveals that retrieval errors dominate model failures.
"""


def test_json_output_holds_the_exact_text_even_where_the_terminal_cannot_print_it(tmp_path):
    import os
    import subprocess

    papers, gone = tmp_path / "papers.txt", tmp_path / "gone.txt"
    papers.write_text(WIDE, encoding="utf-8")
    gone.write_text("\n\n".join(WIDE.split("\n\n")[2:]), encoding="utf-8")  # the first paper left it
    env = {**os.environ, "READLIST_DB": str(tmp_path / "db.json"), "READLIST_PAPERS": str(papers)}
    for args in (["star", "#1"], ["note", "#1", "--text", "ε ★ 中文 é"], ["tag", "#1", "+ε★", "+法"]):
        assert CliRunner().invoke(cli, args, env=env).exit_code == 0
    exact = {"title": "Robust ε-greedy ★ exploration", "note": "ε ★ 中文 é", "tags": ["ε★", "法"]}

    def latin1(*args, papers_file=papers):
        command = [sys.executable, "-m", "readlist", "--papers", str(papers_file), *args]
        done = subprocess.run(command, env=env | {"PYTHONIOENCODING": "latin-1"}, capture_output=True, timeout=60)
        assert done.returncode == 0 and b"Traceback" not in done.stderr, (args, done.stderr)
        return json.loads(done.stdout.decode("latin-1"))

    shown = latin1("show", "#1", "--json")
    assert {key: shown[key] for key in exact} == exact and "中文 and café" in shown["text"]
    assert {key: latin1("list", "--json")[0][key] for key in exact} == exact
    assert latin1("search", "ε-greedy", "--json")[0]["title"] == exact["title"]
    assert latin1("related", "#2", "--json")[0]["title"] == exact["title"]
    assert {key: latin1("export", "--format", "json")["papers"][0][key] for key in exact} == exact
    cited = latin1("export", "--format", "csl-json")[0]
    assert (cited["title"], cited["annote"], cited["keyword"]) == (exact["title"], exact["note"], "ε★, 法")
    assert latin1("log", "--json")[0]["after"] == {"tags": exact["tags"]}
    assert [row["tag"] for row in latin1("stats", "--json")["tags"]] == exact["tags"]
    papers.unlink()  # the first paper's list gone: it is missing
    missing = latin1("list", "--missing", "--json", papers_file=gone)
    assert missing[0]["note"] == exact["note"] and missing[0]["tags"] == exact["tags"]
    assert latin1("search", "is:missing", "--json", papers_file=gone) == missing
    assert latin1("show", missing[0]["id"], "--json", papers_file=gone)["note"] == exact["note"]


def test_a_paper_number_given_without_its_hash_is_told_how_to_write_it(run, tmp_path):
    result = run("star", "1")
    assert result.exit_code == 2 and result.stderr.endswith("(use #1 for the first paper)\n")
    assert "(use #3 for paper number 3)" in run("show", "3").stderr
    assert run("star", "#1").exit_code == 0
    (tmp_path / "papers.txt").unlink()  # its list gone: the paper is missing (not while a list holds it)
    rewritten = tmp_path / "v2.txt"
    rewritten.write_text(PAPERS.replace("We study sparse attention", "Rewritten: we examine routed attention"))

    def v2(*args):
        return CliRunner().invoke(cli, ["--papers", str(rewritten), "--db", str(run.db), *args])

    onto_a_number = v2("reattach", run.ids[0], "1")
    assert onto_a_number.exit_code == 2 and "(use #1 for the first paper)" in onto_a_number.stderr
    numbered = v2("reattach", "#3", "1")
    assert numbered.exit_code == 2 and "give its id" in numbered.stderr and "4 characters" not in numbered.stderr


@pytest.mark.parametrize(
    "ref", ["#²", "#1²", "#" + "9" * 5000, "#0", "#000", "#4"], ids=["²", "1²", "5000 digits", "0", "000", "4 of 3"]
)
def test_a_paper_number_that_names_no_paper_is_one_line(run, ref):
    result = run("star", ref)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"readlist: {ref!r}: "[:200])  # a huge ref is cut short
    assert run("star", "#0003").exit_code == 0 and run("show", "#3").stdout.count("★") == 1


@pytest.mark.parametrize("kind", ["a text file", "a directory", "a path under a file"])
def test_a_database_path_that_cannot_be_used_stops_each_command_with_one_line_naming_it(tmp_path, kind):
    thesis = tmp_path / "thesis.md"
    thesis.write_text("# My thesis\n", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    db = {"a text file": thesis, "a directory": tmp_path / "folder", "a path under a file": thesis / "x.json"}[kind]
    other = tmp_path / "other.json"
    assert CliRunner().invoke(cli, ["--db", str(other), "star", "#1"]).exit_code == 0
    for args in (["list"], ["star", "#1"], ["merge", str(other)]):
        result = CliRunner().invoke(cli, ["--db", str(db), *args])
        assert result.exit_code == 2 and result.stdout == "", (args, result.output)
        assert result.stderr.startswith(f"readlist: {db}: ") and result.stderr.count("\n") == 1
        assert "will not be saved" not in result.stderr  # it is not carrying on


def test_a_database_link_into_a_folder_that_is_gone_is_refused_and_the_folder_not_made(tmp_path):
    target = tmp_path / "unmounted" / "sync" / "readlist.json"
    link = tmp_path / "readlist.json"
    link.symlink_to(target)
    for args in (["star", "#1"], ["list"]):
        result = CliRunner().invoke(cli, ["--db", str(link), *args])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1
        assert str(link) in result.stderr and str(target) in result.stderr
    assert not (tmp_path / "unmounted").exists()
    fresh = tmp_path / "new" / "folder" / "readlist.json"  # no link: made as always
    assert CliRunner().invoke(cli, ["--db", str(fresh), "star", "#1"]).exit_code == 0 and fresh.is_file()
    (tmp_path / "unmounted" / "sync").mkdir(parents=True)  # mounted again
    assert CliRunner().invoke(cli, ["--db", str(link), "star", "#1"]).exit_code == 0 and target.is_file()


@pytest.mark.parametrize("option", ["--db", "--papers"])
def test_an_empty_path_is_refused_rather_than_falling_back_to_the_users_own_files(tmp_path, option):
    result = CliRunner().invoke(cli, [option, "", "star", "#1"], env={"READLIST_DB": str(tmp_path / "db.json")})
    assert result.exit_code == 2
    assert result.stderr == f"readlist: invalid value for '{option}': an empty path (see readlist --help)\n"
    assert not (tmp_path / "db.json").exists()


def test_an_empty_output_or_merge_path_is_named_as_such(run):
    export = run("export", "-o", "")
    assert export.exit_code == 2 and "'-o' / '--output': an empty path" in export.stderr  # before: "is a directory"
    merge = run("merge", "")
    assert merge.exit_code == 2 and "'OTHER': an empty path" in merge.stderr


def test_a_title_with_a_backslash_is_quoted_as_written_in_undo_and_log(run):
    run("title", "#1", "It's", "a", r"\emph", "test")
    assert run("undo").stdout == "undid title → \"It's a \\emph test\" on 'Sparse routing for attention'\n"
    assert 'title → "It\'s a \\emph test"' in run("log").stdout  # before: 'It\'s a \\\\emph test'


def test_an_error_quoting_a_huge_argument_stays_a_short_line(run):
    result = run("show", "x" + "ab" * 5000)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert len(result.stderr) < 500 and " … " in result.stderr  # before: all 10,001 characters repeated


@pytest.mark.parametrize("variable", ["READLIST_DB", "READLIST_PAPERS"])
def test_a_variable_set_but_empty_is_refused_rather_than_falling_back_to_the_users_own_files(variable):
    result = CliRunner().invoke(cli, ["star", "#1"], env={variable: ""})
    assert result.exit_code == 2
    assert result.stderr == f"readlist: {variable} is set but empty (unset it to use the default)\n"


def test_star_status_and_tag_take_several_papers_as_one_step_to_undo(run):
    result = run("star", "#1", "#3", "#1")
    assert result.exit_code == 0, result.output
    assert [p["index"] for p in listed(run, "--starred")] == [1, 3]
    assert len(result.stdout.splitlines()) == 2  # a line for each paper, each once
    assert run("status", "#2", run.ids[2][:6], "reading").exit_code == 0
    assert [p["index"] for p in listed(run, "--status", "reading")] == [2, 3]
    # after the first REF, #N and full ids are papers; any other word is a tag, as before
    assert run("tag", "#1", run.ids[1], "#3", "+x", "theory", "-none").exit_code == 0
    assert [p["tags"] for p in listed(run)] == [["x", "theory"]] * 3
    assert run("undo").stdout == "undid tags +x +theory on 3 papers\n"
    assert run("undo").stdout.startswith("undid status unread → reading on 2 papers")
    assert run("unstar", "#1", "#3").exit_code == 0 and listed(run, "--starred") == []
    assert run("undo").exit_code == 0 and [p["index"] for p in listed(run, "--starred")] == [1, 3]


def test_a_query_names_the_papers_to_change(run):
    result = run("star", "-q", "attention OR diffusion")  # every word must match: none does
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "no paper matches every word" in result.stderr and listed(run, "--starred") == []
    assert run("status", "-q", "-grasping", "read").exit_code == 0  # -word: papers without it
    assert [p["index"] for p in listed(run, "--status", "read")] == [1, 2]
    assert run("tag", "-q", "diffusion", "+robots", "-quick").exit_code == 0
    assert [p["index"] for p in listed(run, "--tag", "robots")] == [3]
    assert run("undo").stdout.startswith("undid tags")  # one paper: its tags
    result = run("unstar", "--query", "tag:none")
    assert result.exit_code == 2 and "no paper matches" in result.stderr


@pytest.mark.parametrize(
    "args, said",
    [
        (("star", "#1", "-q", "attention"), "not both"),
        (("tag", "#1", "-q", "attention", "+x"), "not both"),
        (("star",), "name the papers"),
        (("status", "read"), "name the papers"),
        (("status", "#1", "#2"), "'#2': not a status"),
        (("star", "-q", ""), "no words to search for"),
        (("unstar", "-q", "title:"), "no words to search for"),
        (("status", "-q", "is:missing", "read"), "not in this list"),
        (("star", "-q", 'title:"unclosed'), "-q"),
    ],
)
def test_papers_named_both_ways_or_by_a_query_that_cannot_match_are_refused_in_one_line(run, args, said):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert said in result.stderr and result.stderr.count("\n") == 1
    assert not run.db.exists() or all(not p["starred"] and p["status"] == "unread" for p in listed(run))


def test_list_search_and_the_json_export_give_one_paper_shape(run, tmp_path):
    assert run("star", "#3").exit_code == 0
    assert run("status", "#3", "reading").exit_code == 0
    assert run("tag", "#3", "+robots").exit_code == 0
    assert run("note", "#3", "--text", "read the appendix").exit_code == 0
    [in_list] = [paper for paper in listed(run) if paper["index"] == 3]
    searched = run("search", "grasping", "--json")
    assert searched.exit_code == 0, searched.output
    [found] = json.loads(searched.stdout)
    exported = run("export", "--format", "json", "-q", "grasping")
    [in_export] = json.loads(exported.stdout)["papers"]
    assert set(found) - set(in_list) == {"score", "full_match", "matched"}  # the search adds its own, after
    assert set(in_export) == set(in_list)  # before: three shapes, the search's without star, status or tags
    for paper in (found, in_export):
        assert {key: paper[key] for key in in_list} == in_list
    assert (found["starred"], found["status"], found["tags"]) == (True, "reading", ["robots"])
    out = tmp_path / "back.json"
    assert run("export", "--format", "json", "--all", "-o", str(out)).exit_code == 0
    again = CliRunner().invoke(cli, ["--papers", str(out), "--db", str(run.db), "list", "--json"])
    assert [paper["id"] for paper in json.loads(again.stdout)] == run.ids  # the export still reads back
    assert json.loads(again.stdout)[2]["note"] == "read the appendix"


@pytest.mark.parametrize("direction", ["title added", "title taken off"])
def test_annotations_follow_an_abstract_when_a_title_line_is_added_above_it_or_taken_off(tmp_path, direction):
    from readlist.core.files.paths import bundled_papers

    abstracts = [paper.text for paper in read_papers(bundled_papers()).papers[:4]]
    titled = "A Title Line Added Above the Abstract When the List Was Published Again\n" + abstracts[1]
    untitled_file, titled_file = tmp_path / "v1.txt", tmp_path / "v2.txt"
    untitled_file.write_text("\n\n".join(abstracts), encoding="utf-8")
    titled_file.write_text("\n\n".join([abstracts[0], titled, *abstracts[2:]]), encoding="utf-8")
    before, after = (untitled_file, titled_file) if direction == "title added" else (titled_file, untitled_file)
    db = tmp_path / "readlist.json"

    def on(path, *args):
        return CliRunner().invoke(cli, ["--papers", str(path), "--db", str(db), *args])

    assert on(before, "note", "#2", "--text", "follow me").exit_code == 0
    before.unlink()  # the list published again in its place
    result = on(after, "list", "--json")
    assert "re-attached the annotations of #2" in result.stderr  # before: kept as a missing paper
    assert json.loads(result.stdout)[1]["note"] == "follow me"
    assert on(after, "list", "--missing").stdout == ""
