"""The main screen's actions that change annotations: star, status, note, tags, title, undo, mark-view-read; star,
status and tags act on the marked papers together when there are any, as one step to undo. Every write goes through
the app's store writer."""

from __future__ import annotations

import shutil
import subprocess
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from ...core.files.editor import EditFailed, chosen_editor, edit_text, editor_command
from ...core.store.annotation import STATUSES, editable_title, own_title
from ...core.store.note_edits import note_size_error
from ..display import STICKY
from .marker import marked_count

if TYPE_CHECKING:
    from .main import MainScreen

CHOOSE_EDITOR = "To choose an editor, start readlist with EDITOR set (EDITOR=nano readlist)"


class Annotator:
    """What the keys that annotate the paper under the cursor (or the view's papers) do."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.default_editor_agreed = False  # `e` with no editor set: the user said yes to vi

    @property
    def app(self):
        return self.screen.app

    async def _change(self, fn, done: str | None = None) -> None:
        paper = self.screen.selected_paper()
        if paper is None:
            return
        result = await self.app.write(lambda: fn(paper))
        if result is not None:
            self.screen.refresh_all()
            if done:
                self.screen.notify(done, timeout=1.5)
            await self.screen.searcher.settled()  # before the next key: it acts on the paper selected now

    async def _change_marked(self, papers, fn, done: str) -> None:
        """A change to the marked papers, `fn` making it in one step to undo; `done` says what it did."""
        changed = await self.app.write(fn)
        if changed is None:
            return
        self.screen.refresh_all()
        what = marked_count(len(papers))
        message = f"{what}: {done} — u undoes" if changed else f"{what}: nothing to change"
        self.screen.notify(message[:1].upper() + message[1:], timeout=3)
        await self.screen.searcher.settled()

    async def action_toggle_star(self) -> None:
        if marked := self.screen.view.marked_papers():  # all starred: unstar them; else star them all
            star = not all(self.app.store.get(paper.id).starred for paper in marked)
            update = partial(self.app.store.update_many, marked, starred=star)
            await self._change_marked(marked, update, "starred" if star else "unstarred")
            return
        await self._change(self.app.store.toggle_star)

    async def action_cycle_status(self) -> None:
        if marked := self.screen.view.marked_papers():  # together: to the status after the least advanced one's
            least = min(STATUSES.index(self.app.store.get(paper.id).status) for paper in marked)
            await self._set_status_marked(marked, STATUSES[(least + 1) % len(STATUSES)])
            return
        await self._change(self.app.store.cycle_status)

    async def _set_status(self, status: str) -> None:
        if marked := self.screen.view.marked_papers():
            await self._set_status_marked(marked, status)
            return
        await self._change(lambda paper: self.app.store.set_status(paper, status))

    async def _set_status_marked(self, marked, status: str) -> None:
        await self._change_marked(marked, partial(self.app.store.update_many, marked, status=status), status)

    async def action_set_unread(self) -> None:
        await self._set_status("unread")

    async def action_set_reading(self) -> None:
        await self._set_status("reading")

    async def action_set_read(self) -> None:
        await self._set_status("read")

    async def action_read_and_next(self) -> None:
        paper = self.screen.current_paper
        await self.action_set_read()
        if paper is not None and self.screen.current_paper is paper:  # else it left the view: the next one is selected
            self.screen.paper_list.action_cursor_down()

    async def action_undo(self) -> None:
        by_id = self.screen.papers.by_id

        def name_of(pid: str) -> str | None:
            return self.screen.listed_title(by_id[pid]) if pid in by_id else None

        undone = await self.app.write(lambda: self.app.store.undo(by_id, name_of))
        if undone:
            self.screen.refresh_all()
            self.screen.notify(undone[:1].upper() + undone[1:], markup=False, timeout=3)
            await self.screen.searcher.settled()
        elif undone is None and not self.app.store.pending_error:
            self.screen.notify("Nothing to undo", timeout=1.5)

    def action_edit_note(self) -> None:
        from .dialogs.note import NoteScreen

        paper = self.screen.selected_paper()
        if paper is None:
            return
        current = self.app.store.get(paper.id).note
        drafts = self.app.drafts
        draft = drafts.load(paper.id)
        start, base = None, current  # base: the note the edit began from, to tell a change made elsewhere
        if draft is not None and draft.text.rstrip() != current:
            start = draft.text
            base = draft.base if draft.base is not None else current
            self.screen.notify("Restored the unsaved draft of this note (Esc discards it)", timeout=4)

        def keep(text: str) -> None:
            if text == current:
                drafts.discard(paper.id)
            elif not drafts.save(paper.id, text, base):
                self.screen.notify("Cannot keep a draft of this note on disk; save it soon", severity="warning")

        async def save(text: str | None) -> None:
            if text is None or await self._save_note(paper, base, text):
                drafts.discard(paper.id)  # discarded on purpose, or on disk
            else:  # kept in memory only (the database cannot be written now): the draft stays
                drafts.save(paper.id, text, base)

        self.app.push_screen(NoteScreen(self.screen.listed_title(paper), current, start, keep), save)

    async def _save_note(self, paper, base: str, text: str) -> bool:
        """The one way a note edited in the modal or in $EDITOR is stored, `base` being the note the edit
        began from; True when it is on disk."""
        if text.rstrip() in (base, self.app.store.get(paper.id).note):
            return True
        saved = await self.app.write(lambda: self.app.store.edit_note(paper, base, text))
        if saved is not None:
            self.screen.refresh_all()
            if saved[1]:
                message = "The note was also changed elsewhere while you edited it: both versions are kept, yours first"
                self.screen.notify(message, severity="warning", timeout=8, markup=False)
            elif not self.app.store.pending_error:
                self.screen.notify("Note saved", timeout=1.5)
        return saved is not None and not self.app.store.pending_error

    async def action_external_note(self) -> None:
        paper = self.screen.selected_paper()
        if paper is None:
            return
        try:
            editor = editor_command()
        except ValueError as exc:
            message = str(exc)
            self.screen.notify(f"{message[:1].upper()}{message[1:]}; note unchanged", severity="error", markup=False)
            return
        if shutil.which(editor[0]) is None:  # found out before the screen is handed over, not after
            message = f"Cannot run editor {editor[0]!r}: not found; note unchanged"
            if not chosen_editor():
                message = f"Neither $VISUAL nor $EDITOR is set and {editor[0]} is not installed; note unchanged. "
                message += f"{CHOOSE_EDITOR}, or edit the note with n"
            self.screen.notify(message, severity="error", markup=False, timeout=10)
            return
        if chosen_editor() or self.default_editor_agreed:
            await self._edit_externally(paper, editor)
            return

        from .dialogs.confirm import ConfirmScreen

        async def answer(yes: bool | None) -> None:
            if yes:
                self.default_editor_agreed = True  # asked once a session
                await self._edit_externally(paper, editor)

        question = (
            f"Neither $VISUAL nor $EDITOR is set: open the note in {editor[0]}?\n\n"
            f"{CHOOSE_EDITOR}. The n key edits notes in readlist itself."
        )
        self.app.push_screen(ConfirmScreen(question), answer)

    async def _edit_externally(self, paper, editor: list[str]) -> None:
        current = self.app.store.get(paper.id).note
        try:
            prefix = f"readlist-note-{paper.id}-"
            text = edit_text(current, editor, self._run_handing_over_the_screen, prefix, refuse=note_size_error)
        except EditFailed as exc:
            message = f"{str(exc)[:1].upper()}{str(exc)[1:]}; note unchanged"
            if exc.kept:  # the only copy of what was typed
                message += f", your text is kept in {exc.kept}"
            self.screen.notify(message, severity="error", timeout=STICKY if exc.kept else 5, markup=False)
            return
        await self._save_note(paper, current, text)

    def _run_handing_over_the_screen(self, argv: list[str]) -> int:
        """Run the editor with the terminal to itself, and give its exit status."""
        failure: OSError | None = None
        try:
            with self.app.suspend():
                try:
                    return subprocess.run(argv, check=False).returncode
                except OSError as exc:  # raised once the screen is back
                    failure = exc
        except SuspendNotSupported:
            return subprocess.run(argv, check=False, capture_output=True).returncode
        raise failure

    def action_edit_tags(self) -> None:
        from .dialogs.tags import TagsScreen

        if marked := self.screen.view.marked_papers():
            self._edit_tags_marked(marked)
            return
        paper = self.screen.selected_paper()
        if paper is None:
            return
        current = self.app.store.get(paper.id).tags

        async def save(tags: list[str] | None) -> None:
            if tags is None:
                return
            # Only the user's edits: tags added meanwhile elsewhere (e.g. `readlist tag`) stay.
            added = [tag for tag in tags if tag not in current]
            removed = [tag for tag in current if tag not in tags]
            if not (added or removed):
                return
            if await self.app.write(lambda: self.app.store.change_tags(paper, added, removed)) is not None:
                self.screen.refresh_all()

        known = sorted(self.app.store.tag_counts())
        self.app.push_screen(TagsScreen(self.screen.listed_title(paper), current, known), save)

    def _edit_tags_marked(self, marked) -> None:
        """The tags the marked papers share, to edit: a tag added goes on each, one taken off comes off each, and
        the tags only some of them have stay as they are."""
        from .dialogs.tags import TagsScreen

        tag_sets = [self.app.store.get(paper.id).tags for paper in marked]
        shared = tuple(tag for tag in tag_sets[0] if all(tag in tags for tags in tag_sets[1:]))

        async def save(tags: list[str] | None) -> None:
            if tags is None:
                return
            added = [tag for tag in tags if tag not in shared]
            removed = [tag for tag in shared if tag not in tags]
            if added or removed:
                update = partial(self.app.store.change_tags_many, marked, added, removed)
                await self._change_marked(marked, update, "tags changed")

        known = sorted(self.app.store.tag_counts())
        heading = f"{marked_count(len(marked))} (the tags they all have)"
        self.app.push_screen(TagsScreen(heading[:1].upper() + heading[1:], shared, known), save)

    def action_edit_title(self) -> None:
        from .dialogs.title import TitleScreen

        paper = self.screen.selected_paper()
        if paper is None:
            return
        current = self.app.store.get(paper.id).title

        async def save(title: str | None) -> None:
            if title is None:
                return
            new = own_title(paper, title)
            if new != current and await self.app.write(lambda: self.app.store.update(paper, title=new)) is not None:
                self.screen.refresh_all()

        self.app.push_screen(TitleScreen(current or editable_title(paper.title), paper.title), save)

    def action_mark_view_read(self) -> None:
        from .dialogs.confirm import ConfirmScreen

        view = self.screen.view
        papers = [self.screen.papers.papers[pos] for pos in view.matching()]  # not the partial matches
        left = len(view.positions) - len(papers)
        if not papers:
            message = "No paper matches every word of the search" if left else "No papers in this view"
            self.screen.notify(message, severity="warning", timeout=3)
            return

        async def confirmed(yes: bool | None) -> None:
            if yes:
                changed = await self.app.write(lambda: self.app.store.update_many(papers, status="read"))
                if changed is not None:
                    self.screen.refresh_all()
                    self.screen.notify(f"Marked {changed} paper(s) read — u undoes", timeout=3)

        self.app.push_screen(ConfirmScreen(mark_read_question(len(papers), left)), confirmed)


def mark_read_question(count: int, partial: int) -> str:
    """What `R` asks: how many papers it marks, and how many partial matches (missing a word) it leaves."""
    which = f"the {count} papers" if count > 1 else "the one paper"
    if not partial:
        return f"Mark {which} in this view as read?"
    left = "paper missing a word is" if partial == 1 else f"{partial} papers missing a word are"
    return f"Mark {which} matching the whole search as read? (The {left} left as they are.)"
