"""Two writers (the TUI and a CLI command, or two processes) never lose each other's changes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from readlist.core.papers.paper import Paper
from readlist.core.store.store import Store

WRITER = r"""
import sys
from readlist.core.papers.paper import Paper
from readlist.core.store.store import Store

db, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store = Store(db)
sys.stdin.readline()  # start together
for n in range(first, first + count):
    paper = Paper(id=f"{n:012x}", index=n, text=f"abstract {n}")
    if n % 2:
        store.toggle_star(paper)
    else:
        store.update(paper, note=f"note {n}", tags=[f"t{n % 5}"])
    if store.pending_error:
        sys.exit(store.pending_error)
"""


def paper(n: int) -> Paper:
    return Paper(id=f"{n:012x}", index=n, text=f"abstract {n}")


def check(store: Store, n: int) -> bool:
    ann = store.get(paper(n).id)
    return ann.starred if n % 2 else (ann.note == f"note {n}" and ann.tags == (f"t{n % 5}",))


@pytest.mark.slow
def test_two_processes_each_making_200_changes_lose_none(tmp_path):
    db = tmp_path / "readlist.json"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(first), "200"],
            stdin=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for first in (1, 1001)
    ]
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    store = Store(db)
    assert store.notices == []
    missing = [n for n in [*range(1, 201), *range(1001, 1201)] if not check(store, n)]
    assert missing == []
    assert len(store.all()) == 400 and len(store.events()) == 400


def test_two_stores_in_one_process_see_each_others_changes(tmp_path):
    db = tmp_path / "readlist.json"
    tui, cli = Store(db), Store(db)
    tui.toggle_star(paper(1))
    assert not tui.reload_if_changed()
    cli.set_note(paper(2), "from the command line")  # catches up with the star first
    assert cli.get(paper(1).id).starred
    assert tui.get(paper(2).id).note == ""
    assert tui.reload_if_changed()
    assert tui.get(paper(2).id).note == "from the command line"
    assert not tui.reload_if_changed()
    tui.set_status(paper(3), "read")
    reopened = Store(db)
    assert reopened.get(paper(1).id).starred and reopened.get(paper(3).id).status == "read"
    assert reopened.get(paper(2).id).note == "from the command line"


def test_toggle_reads_the_latest_value_before_flipping(tmp_path):
    db = tmp_path / "readlist.json"
    tui, cli = Store(db), Store(db)
    tui.toggle_star(paper(1))
    cli.toggle_star(paper(1))  # unstars
    assert tui.toggle_star(paper(1)).starred  # caught up with the unstar first, so this stars again
    assert Store(db).get(paper(1).id).starred


def test_threads_sharing_one_store(tmp_path):
    db = tmp_path / "readlist.json"
    store = Store(db)

    def work(first: int) -> None:
        for n in range(first, first + 50):
            if n % 2:
                store.toggle_star(paper(n))
            else:
                store.update(paper(n), note=f"note {n}", tags=[f"t{n % 5}"])

    threads = [threading.Thread(target=work, args=(first,)) for first in (0, 100, 200, 300)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reopened = Store(db)
    expected = [n for first in (0, 100, 200, 300) for n in range(first, first + 50)]
    assert [n for n in expected if not check(reopened, n)] == []


def test_a_change_waiting_for_another_writers_lock_says_so(tmp_path):
    import threading

    from filelock import FileLock

    from readlist.core.papers.paper import Paper

    db = tmp_path / "readlist.json"
    store = Store(db)
    said = []
    store.tell_when_waiting(said.append)
    held = threading.Event()

    def hold() -> None:  # another writer, for a second and a half
        with FileLock(str(db) + ".lock", thread_local=False, is_singleton=False):
            held.set()
            threading.Event().wait(1.5)

    threading.Thread(target=hold).start()
    held.wait(5)
    store.toggle_star(Paper(id="0123456789ab", index=1, text="An abstract."))
    assert len(said) == 1 and "waiting for another readlist" in said[0]
    assert Store(db).get("0123456789ab").starred


def _synced_from_elsewhere(db, n: int) -> None:
    """What a sync tool does: another machine's version of the database (this one's, plus a change made there) is
    written to a temporary file and renamed over the database, taking no lock."""
    elsewhere = db.with_name("elsewhere.json")
    elsewhere.write_bytes(db.read_bytes())
    Store(elsewhere).update(paper(n), note="written on the laptop")
    os.replace(elsewhere, db)


def _synced_from_elsewhere_during(store: Store, step: str) -> None:
    """The sync tool renames another version over the database (paper 2 noted there) while the store runs `step`
    of its records, once."""
    records = store._file.records
    real = getattr(records, step)

    def meanwhile(*args, **kwargs):
        setattr(records, step, real)
        _synced_from_elsewhere(store.path, 2)
        return real(*args, **kwargs)

    setattr(records, step, meanwhile)


@pytest.mark.parametrize("when", ["between two writes", "while the second is written"])
def test_a_database_a_sync_tool_renames_over_is_built_on_never_written_over(tmp_path, when):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.update(paper(1), starred=True)
    if when == "between two writes":
        _synced_from_elsewhere(db, 2)
    else:  # after the change is applied, just before the file is written
        _synced_from_elsewhere_during(store, "compact_log")
    store.update(paper(3), status="read")
    for current in (Store(db), store):  # on disk, and here
        assert current.get(paper(2).id).note == "written on the laptop"  # not written over
        assert current.get(paper(1).id).starred and current.get(paper(3).id).status == "read"


def test_a_database_renamed_over_while_a_merge_replaces_it_is_not_written_over(tmp_path):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.update(paper(1), starred=True)
    _synced_from_elsewhere_during(store, "replacement")  # made from what the store held, before it is written
    with pytest.raises(OSError, match="replaced while"):
        store.replace_all(store.all(), store.events()[::-1], reason="merge")
    assert Store(db).get(paper(2).id).note == "written on the laptop"
