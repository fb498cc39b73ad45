"""Note drafts on disk: offered back by the readlist that wrote them, or by any once it has ended."""

from __future__ import annotations

import os
import subprocess
import sys

from readlist.core.store.drafts import Drafts

PAPER = "0123456789ab"


def ended_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)


def test_a_draft_comes_back_with_the_note_it_was_started_from(tmp_path):
    tmp_path = tmp_path / "db.drafts"
    drafts = Drafts(tmp_path)
    assert drafts.save(PAPER, "text [/bold]\n", "the note before")
    draft = drafts.load(PAPER)
    assert (draft.text, draft.base) == ("text [/bold]\n", "the note before")
    assert drafts.ids() == [PAPER]
    drafts.discard(PAPER)
    assert drafts.load(PAPER) is None and list(tmp_path.iterdir()) == []


def test_a_draft_of_an_ended_readlist_is_offered_and_one_of_a_running_readlist_is_not(tmp_path):
    Drafts(tmp_path, pid=ended_pid()).save(PAPER, "left behind by a closed terminal", "")
    running = Drafts(tmp_path, pid=os.getppid())
    running.save("ba9876543210", "still being typed elsewhere", "")
    mine = Drafts(tmp_path)
    assert mine.ids() == [PAPER]
    assert mine.load(PAPER).text == "left behind by a closed terminal"
    assert mine.load("ba9876543210") is None
    mine.discard("ba9876543210")  # not ours to remove
    assert running.load("ba9876543210").text == "still being typed elsewhere"


def test_a_draft_written_by_an_older_readlist_or_damaged_still_gives_its_text(tmp_path):
    (tmp_path / f"{PAPER}.md").write_text("an older draft", encoding="utf-8")
    (tmp_path / "ba9876543210.123.json").write_bytes(b'{"text": "half writ')
    (tmp_path / "notes.txt").write_text("not a draft", encoding="utf-8")
    drafts = Drafts(tmp_path)
    assert (drafts.load(PAPER).text, drafts.load(PAPER).base) == ("an older draft", None)
    assert drafts.load("ba9876543210").text == '{"text": "half writ'
    assert sorted(drafts.ids()) == [PAPER, "ba9876543210"]


def test_a_draft_from_another_machine_is_its_own_until_it_is_hours_old(tmp_path):
    import json

    path = tmp_path / f"{PAPER}.4242.json"
    path.write_text(json.dumps({"host": "laptop-elsewhere", "pid": 4242, "base": "", "text": "typed there"}))
    drafts = Drafts(tmp_path)
    assert drafts.load(PAPER) is None and drafts.ids() == []
    drafts.discard(PAPER)
    assert path.exists()
    old = path.stat().st_mtime - 13 * 3600
    os.utime(path, (old, old))  # that machine went away with the dialog open
    assert drafts.load(PAPER).text == "typed there"


def test_a_draft_renamed_to_its_papers_new_id_never_replaces_a_draft_there(tmp_path):
    tmp_path = tmp_path / "db.drafts"
    drafts = Drafts(tmp_path, pid=999999)
    drafts.save(PAPER, "written on the first version", "")
    drafts.save("ba9876543210", "written on the second version", "")
    drafts.rename(PAPER, "ba9876543210")
    texts = sorted(path.read_text() for path in tmp_path.iterdir())
    assert len(texts) == 2 and "written on the second version" in texts[1] and "first version" in texts[0]
    assert Drafts(tmp_path, pid=999999).ids() == ["ba9876543210"]
