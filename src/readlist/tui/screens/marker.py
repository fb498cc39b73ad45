"""The main screen's marks: papers marked one by one or the whole view, which s, r, 1 2 3, t, x and y then act on
together (the view state holds them; the annotator, exporter and navigator read them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .main import MainScreen

ASK_BEFORE_CLEARING = 20  # more marks than this: Esc asks before it throws them away


def marked_count(count: int) -> str:
    """'the 12 marked papers', 'the marked paper'."""
    return f"the {count} marked papers" if count != 1 else "the marked paper"


class Marker:
    """Marking and unmarking papers (v, V, Esc in the list)."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen

    def marks_changed(self) -> None:
        """Rows and header show the marks as they are now."""
        self.screen.paper_list.redraw()
        self.screen.refresh_header()

    def action_toggle_mark(self) -> None:
        paper = self.screen.selected_paper()
        if paper is None:
            return
        self.screen.view.toggle_mark(paper)
        self.marks_changed()
        self.screen.paper_list.action_cursor_down()

    def action_mark_view(self) -> None:
        """Every paper matching the whole search (not those below the divider), as `R` takes them."""
        view = self.screen.view
        papers = [self.screen.papers.papers[position] for position in view.matching()]
        if not papers:
            self.screen.notify("No papers in this view", severity="warning", timeout=2)
            return
        added = view.mark(papers)
        self.marks_changed()
        if added:
            message = f"Marked {added} paper(s) — {len(view.marked)} marked in all; Esc clears the marks"
        else:
            message = f"The {len(papers)} paper(s) in this view were already marked — Esc clears the marks"
        self.screen.notify(message, timeout=3)

    def clear(self) -> None:
        """Esc in the list with papers marked: unmark them, asking first when there are many."""
        from .dialogs.confirm import ConfirmScreen

        count = len(self.screen.view.marked)
        if count <= ASK_BEFORE_CLEARING:
            self._cleared(True)
            return
        self.screen.app.push_screen(ConfirmScreen(f"Clear the marks of {count} papers?"), self._cleared)

    def _cleared(self, yes: bool | None) -> None:
        if yes:
            count = self.screen.view.clear_marks()
            self.marks_changed()
            self.screen.notify(f"Cleared {count} mark(s)", timeout=1.5)
