"""A database kept in git: two clones edited apart, `git pull` merging them through `readlist merge-driver`
(run as git runs it, through the installed program), and `readlist git-setup` writing the two lines that set it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from readlist.cli import cli
from readlist.core.papers.reader import read_papers
from readlist.core.resolve.records import Match, Resolution, Status
from readlist.core.store.merge_file import read_database
from readlist.core.store.note_edits import NOTE_SEPARATOR
from readlist.core.store.store import Store

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

PAPERS = """Three papers for the tests

We study sparse attention for long documents and show that learned routing matches dense attention.

A new benchmark for table question answering reveals that retrieval errors dominate model failures.

Diffusion policies for robot grasping transfer from simulation when trained with randomised friction.
"""  # no title lines: a title found online is shown
SHARED = "Reading group, week 3.\nRouting is learned per token.\nCompare with dense attention."


def git(where: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def readlist(papers: Path, db: Path, *args: str) -> subprocess.CompletedProcess:
    """The installed program, as a user (and git) runs it."""
    command = [sys.executable, "-m", "readlist", "--papers", str(papers), "--db", str(db), *args]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def clones(tmp_path):
    """Two clones (laptop, desk) of a repository holding a database with a shared note, each set up with
    `readlist git-setup`; the paper file lives outside the repository."""
    papers = tmp_path / "papers.txt"
    papers.write_text(PAPERS, encoding="utf-8")
    origin, seed = tmp_path / "origin.git", tmp_path / "seed"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    git(tmp_path, "init", "-q", str(seed))
    _identity(seed)
    readlist(papers, seed / "readlist.json", "note", "#1", "--text", SHARED)
    setup = readlist(papers, seed / "readlist.json", "git-setup")
    assert "merge=readlist" in setup.stdout
    git(seed, "add", "readlist.json", ".gitattributes", ".gitignore")
    git(seed, "commit", "-q", "-m", "reading list")
    git(seed, "push", "-q", str(origin), "HEAD:main")
    out = []
    for name in ("laptop", "desk"):
        clone = tmp_path / name
        git(tmp_path, "clone", "-q", "-b", "main", str(origin), str(clone))
        _identity(clone)
        readlist(papers, clone / "readlist.json", "git-setup")
        out.append(clone)
    ids = [paper.id for paper in read_papers(papers).papers]
    return papers, out[0], out[1], ids


def _identity(repo: Path) -> None:
    git(repo, "config", "user.name", "Reader")
    git(repo, "config", "user.email", "reader@example.org")
    git(repo, "config", "commit.gpgsign", "false")
    git(repo, "config", "pull.rebase", "false")


def commit_and_push(clone: Path, message: str) -> None:
    git(clone, "commit", "-q", "-am", message)
    git(clone, "push", "-q", "origin", "HEAD:main")


def pull(clone: Path) -> None:
    git(clone, "commit", "-q", "-am", "edits here")
    git(clone, "pull", "-q", "--no-edit", "origin", "main")  # fails on a conflict


def test_git_pull_merges_edits_made_on_two_clones_through_the_driver(clones):
    papers, laptop, desk, ids = clones
    readlist(papers, laptop / "readlist.json", "star", "#2")
    readlist(papers, laptop / "readlist.json", "status", "#1", "read")
    readlist(papers, laptop / "readlist.json", "tag", "#3", "+robots")
    commit_and_push(laptop, "laptop")
    readlist(papers, desk / "readlist.json", "status", "#3", "reading")
    readlist(papers, desk / "readlist.json", "tag", "#2", "+tables")
    readlist(papers, desk / "readlist.json", "note", "#2", "--text", "retrieval is the bottleneck")
    found = Match(title="Tables, Retrieved", source="arxiv", arxiv_id="2501.00002")
    Store(desk / "readlist.json").keep_resolutions([Resolution(ids[1], Status.FOUND, match=found)])
    pull(desk)

    raw = (desk / "readlist.json").read_text(encoding="utf-8")
    assert "<<<<<<<" not in raw and ">>>>>>>" not in raw
    shown = {p["index"]: p for p in json.loads(readlist(papers, desk / "readlist.json", "list", "--json").stdout)}
    assert shown[1]["status"] == "read" and shown[1]["note"] == SHARED
    assert shown[2]["starred"] and shown[2]["tags"] == ["tables"] and shown[2]["note"] == "retrieval is the bottleneck"
    assert shown[2]["title"] == "Tables, Retrieved"  # the resolved title, from the resolutions table
    assert shown[3]["status"] == "reading" and shown[3]["tags"] == ["robots"]
    assert git(desk, "status", "--porcelain") == ""  # merged and committed, readlist's own files ignored


def test_a_note_both_clones_added_to_keeps_the_shared_text_once_and_both_additions(clones):
    papers, laptop, desk, _ = clones
    readlist(papers, laptop / "readlist.json", "note", "#1", "--append", "Laptop: try it on code.")
    commit_and_push(laptop, "laptop")
    readlist(papers, desk / "readlist.json", "note", "#1", "--append", "Desk: ask about the baseline.")
    pull(desk)

    annotations, _ = read_database(desk / "readlist.json")
    note = next(a.note for a in annotations.values() if a.note.startswith("Reading group"))
    laptop_said, desk_said = "Laptop: try it on code.", "Desk: ask about the baseline."
    # the addition made first comes first; made within one second (the log's times are to the second), by their text
    assert note in (f"{SHARED}\n{laptop_said}\n{desk_said}", f"{SHARED}\n{desk_said}\n{laptop_said}")
    assert NOTE_SEPARATOR not in note and all("conflict" not in a.tags for a in annotations.values())


def test_the_driver_leaves_ours_alone_and_fails_for_a_file_that_is_not_a_readlist_database(tmp_path):
    ours, theirs, base = tmp_path / "ours", tmp_path / "theirs", tmp_path / "base"
    Store(ours).replace_all({}, [])
    kept = ours.read_bytes()
    theirs.write_text('{"name": "another program"}', encoding="utf-8")
    base.write_bytes(b"")
    done = subprocess.run(
        [sys.executable, "-m", "readlist", "merge-driver", str(base), str(ours), str(theirs)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and ours.read_bytes() == kept
    assert done.stderr.count("\n") == 1 and str(theirs) in done.stderr and "Traceback" not in done.stderr


def test_git_setup_keeps_existing_lines_and_never_adds_its_own_twice(tmp_path):
    repo = tmp_path / "notes"
    git(tmp_path, "init", "-q", str(repo))
    (repo / ".gitattributes").write_text("*.txt text", encoding="utf-8")  # no newline at its end
    db = repo / "readlist.json"
    for _ in range(2):
        result = CliRunner().invoke(cli, ["--db", str(db), "git-setup"])
        assert result.exit_code == 0, result.output
    assert (repo / ".gitattributes").read_text(encoding="utf-8") == "*.txt text\nreadlist.json merge=readlist\n"
    ignored = (repo / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert len(ignored) == len(set(ignored)) and {"readlist.json.lock", "readlist.json.bak-*"} <= set(ignored)
    assert git(repo, "config", "merge.readlist.driver").strip().endswith("-m readlist merge-driver %O %A %B")
    assert git(repo, "check-attr", "merge", "readlist.json").strip().endswith("merge: readlist")


def test_git_setup_outside_a_repository_is_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "readlist.json"), "git-setup"])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "Traceback" not in result.output


def test_the_driver_merges_two_databases_added_apart_by_an_empty_base(tmp_path):
    papers = tmp_path / "papers.txt"
    papers.write_text(PAPERS, encoding="utf-8")
    ours, theirs, base = tmp_path / "ours", tmp_path / "theirs", tmp_path / "base"
    readlist(papers, ours, "star", "#1")
    readlist(papers, theirs, "note", "#2", "--text", "from the other clone")
    base.write_bytes(b"")  # git's base when both sides added the file
    subprocess.run([sys.executable, "-m", "readlist", "merge-driver", str(base), str(ours), str(theirs)], check=True)
    shown = json.loads(readlist(papers, ours, "list", "--json").stdout)
    assert shown[0]["starred"] and shown[1]["note"] == "from the other clone"
