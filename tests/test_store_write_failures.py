"""A write that fails (full disk, read-only directory) keeps the change in memory, says so, and is retried."""

from __future__ import annotations

import errno
import os

import pytest

from readlist.core.files import atomic as atomic_storage
from readlist.core.papers.paper import Paper
from readlist.core.store.opening import Opener
from readlist.core.store.store import Store


def paper(n: int) -> Paper:
    return Paper(id=f"{n:012x}", index=n, text=f"Abstract number {n} about a topic of its own.")


@pytest.fixture
def failing_disk(monkeypatch):
    """While `broken[0]` is true, every atomic rename fails with the given errno."""
    broken = [errno.ENOSPC]
    real_replace = os.replace

    def replace(src, dst):
        if broken[0]:
            raise OSError(broken[0], os.strerror(broken[0]), str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(atomic_storage.os, "replace", replace)
    return broken


def test_failed_write_keeps_change_in_memory_and_the_saved_file_intact(tmp_path, failing_disk):
    db = tmp_path / "readlist.json"
    failing_disk[0] = 0
    store = Store(db)
    store.set_note(paper(1), "saved before the disk filled up")
    saved = db.read_bytes()
    failing_disk[0] = errno.ENOSPC
    ann = store.toggle_star(paper(2))
    assert ann.starred and store.get(paper(2).id).starred
    assert "No space left on device" in store.pending_error
    assert db.read_bytes() == saved
    assert not list(tmp_path.glob(".readlist.json.*.tmp"))  # the temp file was cleaned up
    assert not store.flush()
    failing_disk[0] = 0
    assert store.flush()
    assert store.pending_error is None
    reopened = Store(db)
    assert reopened.get(paper(1).id).note == "saved before the disk filled up"
    assert reopened.get(paper(2).id).starred


def test_pending_changes_are_retried_by_the_next_change(tmp_path, failing_disk):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.set_status(paper(1), "reading")
    store.set_status(paper(2), "read")
    assert store.pending_error
    failing_disk[0] = 0
    store.set_status(paper(3), "read")
    assert store.pending_error is None
    reopened = Store(db)
    assert [reopened.get(paper(n).id).status for n in (1, 2, 3)] == ["reading", "read", "read"]
    assert len(reopened.events()) == 3


def test_retry_merges_with_what_another_process_saved_meanwhile(tmp_path, failing_disk):
    db = tmp_path / "readlist.json"
    failing_disk[0] = 0
    Store(db).set_note(paper(9), "old")  # the file exists before anything fails
    failing_disk[0] = errno.EROFS
    mine = Store(db)
    mine.toggle_star(paper(1))
    assert "Read-only file system" in mine.pending_error
    failing_disk[0] = 0
    other = Store(db)
    other.update(paper(2), tags=["theirs"])
    assert mine.flush()
    reopened = Store(db)
    assert reopened.get(paper(1).id).starred
    assert reopened.get(paper(2).id).tags == ("theirs",)
    assert reopened.get(paper(9).id).note == "old"
    assert mine.get(paper(2).id).tags == ("theirs",)


def test_unreadable_file_is_never_written_over(tmp_path, monkeypatch):
    db = tmp_path / "readlist.json"
    Store(db).set_note(paper(1), "on disk")
    saved = db.read_bytes()
    real = Opener.read

    def denied(self):
        raise PermissionError(errno.EACCES, "Permission denied", str(db))

    monkeypatch.setattr(Opener, "read", denied)
    store = Store(db)
    assert store.blocked == f"{db}: permission denied (cannot read the file)"
    assert store.notices == [f"{store.blocked}; changes will not be saved"]  # the terminal UI carries on
    store.toggle_star(paper(2))
    assert store.pending_error and db.read_bytes() == saved
    monkeypatch.setattr(Opener, "read", real)
    assert store.flush()
    reopened = Store(db)
    assert reopened.get(paper(1).id).note == "on disk"
    assert reopened.get(paper(2).id).starred


def test_a_database_made_read_only_is_not_written_and_its_permissions_are_kept(tmp_path):
    import stat

    from readlist.core.papers.paper import Paper

    db = tmp_path / "readlist.json"
    paper = Paper(id="0123456789ab", index=1, text="An abstract.")
    Store(db).set_note(paper, "first")
    db.chmod(0o644)  # opened up by the user: a write keeps it so
    Store(db).toggle_star(paper)
    assert stat.S_IMODE(db.stat().st_mode) == 0o644
    db.chmod(0o444)
    before = db.read_bytes()
    store = Store(db)
    store.set_note(paper, "second")
    assert "read-only" in store.pending_error
    assert db.read_bytes() == before and stat.S_IMODE(db.stat().st_mode) == 0o444
    with pytest.raises(PermissionError):  # a merge replacing every annotation is refused the same way
        store.replace_all({}, [], reason="merge")
    assert db.read_bytes() == before and not list(tmp_path.glob("*-merge"))


def test_a_save_failure_names_the_database_once(tmp_path):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.toggle_star(paper(1))
    db.unlink()
    db.mkdir()  # the database path became a directory
    store.toggle_star(paper(2))
    assert store.pending_error and store.pending_error.count(str(db)) == 1  # before: "...: Is a directory: <db>"
