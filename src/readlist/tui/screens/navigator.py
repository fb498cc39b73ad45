"""The main screen's actions that move around and look at papers (no annotation changes): panes and focus, the quick
filter and the order, jumps to a paper, its links and the clipboard (the marked papers', when there are any), the
help and progress dialogs."""

from __future__ import annotations

import webbrowser
from itertools import chain
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ...core.papers.links import (
    Link,
    LinkSettingError,
    paper_links,
    source_links,
    web_search,
    web_search_template,
)
from ..widgets.detail import RelatedList
from ..widgets.detail_body import DetailBody
from ..widgets.note_markdown import note_links
from ..widgets.search_bar import SearchBar
from .marker import marked_count
from .view_state import SORTS

if TYPE_CHECKING:
    from .main import MainScreen

NOTE_LINK = "In your note"
# The list pane's width on a wide screen, in percent: the stylesheet's to start with, `<` and `>` a step at a time.
LIST_WIDTH, LIST_WIDTH_STEP, LIST_WIDTHS = 40, 10, range(20, 81)


def list_width(percent: int | None) -> int | None:
    """A width remembered (or hand-edited) in the UI state, kept within what `<` and `>` reach; None stays None."""
    return None if percent is None else min(max(percent, LIST_WIDTHS.start), LIST_WIDTHS.stop - 1)


class Navigator:
    """Panes and focus, filter, jumps, links, clipboard, dialogs (the cursor keys go to the list itself)."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen

    def visible_pane(self):
        """Where the keyboard belongs: the detail when a narrow screen shows it instead of the list."""
        screen = self.screen
        if screen.has_class("narrow") and screen.has_class("show-detail"):
            return screen.query_one(DetailBody)
        return screen.paper_list

    def keep_focus_visible(self, focused=None) -> None:
        """Focus on a widget the layout now hides (after a resize, a dialog, a jump) moves to the pane shown."""
        focused = focused or self.screen.focused
        if focused is None or not all(getattr(node, "display", True) for node in focused.ancestors_with_self):
            self.visible_pane().focus()

    def action_focus_search(self) -> None:
        screen = self.screen
        search = screen.query_one(SearchBar)
        # `/` is a priority key, so typing one in the bar arrives here, ahead of the keys typed before it that
        # the bar has not read yet (a paste without bracketed paste): it goes in after them. The screen's
        # focus, not has_focus: that is set only once the bar has read its focus event.
        if screen.focused is search:
            search.call_later(search.insert_text_at_cursor, "/")
            return
        screen.set_class(False, "show-detail")
        search.reopen()
        # Focus now, not on the next message cycle: keys typed right after `/` must reach the bar.
        screen.set_focus(search, scroll_visible=False)  # docked, always in view: no reflow of the screen to check

    def action_open_detail(self) -> None:
        screen = self.screen
        if screen.has_class("narrow"):
            showing = not screen.has_class("show-detail")
            screen.set_class(showing, "show-detail")
            (screen.query_one(DetailBody) if showing else screen.paper_list).focus()
        else:
            screen.query_one(DetailBody).focus()

    def action_close_detail(self) -> None:
        self.screen.set_class(False, "show-detail")
        self.screen.paper_list.focus()

    def action_cycle_filter(self) -> None:
        quick_filter = self.screen.view.next_filter()
        self.screen.searcher.refresh()
        self.screen.notify(f"Filter: {quick_filter}", timeout=1.5)

    def action_cycle_sort(self) -> None:
        """The next order, listed at once; the message lists those offered now, the one chosen in bold."""
        view = self.screen.view
        chosen = view.next_sort()
        self.screen.searcher.refresh()
        offered = " · ".join(f"[b]{SORTS[name]}[/b]" if name == chosen else SORTS[name] for name in view.sorts())
        self.screen.notify(f"Sort: {SORTS[chosen]}\n{offered}  (S: next)", timeout=5)

    def action_widen_list(self) -> None:
        self._resize_list(LIST_WIDTH_STEP)

    def action_narrow_list(self) -> None:
        self._resize_list(-LIST_WIDTH_STEP)

    def _resize_list(self, step: int) -> None:
        """The list pane a step wider or narrower (the detail pane takes the rest), remembered with the UI state."""
        screen = self.screen
        width = list_width((screen.list_width or LIST_WIDTH) + step)
        screen.list_width = width
        screen.apply_list_width()
        narrow = screen.has_class("narrow")
        where = " (on a screen 100 columns wide or more; here the list takes the width)" if narrow else ""
        screen.notify(f"List pane: {width}% of the width{where}", timeout=1.5)

    def action_next_unread(self) -> None:
        """The next unread paper below, else (saying so) the first one from the top, as newsreaders wrap."""
        papers_list = self.screen.paper_list
        store = self.screen.app.store
        start = papers_list.cursor
        for row in chain(range(start + 1, papers_list.row_count), range(min(start, papers_list.row_count))):
            position = papers_list.position_at(row)
            if position is not None and store.get(self.screen.papers.papers[position].id).status == "unread":
                papers_list.cursor = row
                if row < start:
                    self.screen.notify("No unread paper below: back to the first from the top", timeout=2)
                return
        self.screen.notify("No other unread papers in this view", timeout=2)

    def jump_to(self, position: int) -> None:
        """Select a paper; one not in the view clears the search and filter, which Esc in the list brings back.
        The view left is kept in the history that backspace goes back through."""
        screen = self.screen
        current = screen.current_paper
        if screen.paper_list.select_position(position):
            screen.view.went_from(current)
        else:
            paper = screen.papers.papers[position]
            before = screen.view.jump(paper, current)
            screen.show_view()
            message = f"{before.describe()} cleared to show #{paper.index} — Esc in the list goes back"
            self.screen.notify(message, markup=False, timeout=6)
        self.visible_pane().focus()  # a related paper opened on a narrow screen stays in the detail

    def action_focus_related(self) -> None:
        """To the detail pane's related papers (shown first on a narrow screen): Enter goes to the one highlighted."""
        screen = self.screen
        related = screen.query_one(RelatedList)
        if not related.option_count:
            screen.notify("No related papers shown for this paper (yet)", timeout=2)
            return
        screen.set_class(screen.has_class("narrow"), "show-detail")
        if not related.has_focus:
            related.highlighted = 0  # from the most related, whichever was highlighted on the last visit
        related.focus()

    def action_go_back(self) -> None:
        """Back to the view the latest jump left: its search, filter and paper."""
        screen = self.screen
        before = screen.view.go_back()
        if before is None:
            screen.notify("Nothing to go back to: ] then Enter goes to a related paper", timeout=2)
            return
        screen.show_view()
        self.visible_pane().focus()

    def action_clear_search(self) -> None:
        """Esc in the list: clear the search (the paper under the cursor stays selected); right after a jump
        that cleared the search, bring it back; else close the notifications on screen."""
        screen = self.screen
        if screen.view.search_text:
            screen.query_one(SearchBar).clear_and_keep()
        elif screen.view.back():
            screen.show_view()
        else:
            screen.app.clear_notifications()

    def action_open_link(self) -> None:
        """Open the paper's best link: its PDF, its page, DOI or arXiv page, a link in its abstract, else a web
        search for it (core/papers/links.py says the order)."""
        paper = self.screen.selected_paper()
        if paper is None:
            return
        links = source_links(paper)
        link = links[0] if links else web_search(paper, self.screen.listed_title(paper), self._web_search())
        self.screen.run_in_thread(self.open_url, link.url)

    def action_pick_link(self) -> None:
        """A dialog listing every link to the paper, best first; Enter opens the one chosen."""
        from .dialogs.links import LinksScreen

        paper = self.screen.selected_paper()
        if paper is None:
            return
        title = self.screen.listed_title(paper)
        *links, search = paper_links(paper, title, self._web_search())
        links += self.note_links(paper, {link.url for link in links})
        self.screen.app.push_screen(LinksScreen(title, [*links, search]), self._open_chosen)

    def note_links(self, paper, known: set[str]) -> list[Link]:
        """The web links in the paper's note, which the detail pane shows but never follows on a click."""
        urls = note_links(self.screen.app.store.get(paper.id).note)
        return [Link(NOTE_LINK, url) for url in urls if urlsplit(url).scheme in ("http", "https") and url not in known]

    def _open_chosen(self, url: str | None) -> None:
        if url is not None:
            self.screen.run_in_thread(self.open_url, url)

    def _web_search(self) -> str | None:
        """The web search's template (READLIST_WEB_SEARCH); one that cannot make a link is said, and arXiv's used."""
        try:
            return web_search_template()
        except LinkSettingError as exc:
            self.screen.notify(f"{exc} — searching arXiv instead", severity="warning", markup=False, timeout=10)
            return None

    def open_url(self, url: str) -> None:
        """Open the link off the UI thread (finding a browser takes a moment), then say whether it opened."""
        try:
            opened = webbrowser.open(url)
        except webbrowser.Error:  # no browser registered
            opened = False
        self.screen.deliver(self._told_opened, url, opened)

    def _told_opened(self, url: str, opened: bool) -> None:
        if opened:
            self.screen.notify(f"Opened {url}", markup=False, timeout=2)
            return
        # Most links are not in the abstract (a PDF, a web search): copied on their own, for a browser elsewhere.
        self.screen.app.copy_to_clipboard(url)
        message = f"Could not open a browser for {url} — the link is copied to the clipboard"
        self.screen.notify(message, severity="warning", markup=False, timeout=10)

    def action_copy(self) -> None:
        if marked := self.screen.view.marked_papers():  # each one's title and abstract, a blank line between
            self.screen.app.copy_to_clipboard("\n\n".join(self.copied_text(paper) for paper in marked))
            self.screen.notify(f"Copied the titles and abstracts of {marked_count(len(marked))}", timeout=1.5)
            return
        paper = self.screen.selected_paper()
        if paper is not None:
            self.screen.app.copy_to_clipboard(self.copied_text(paper))
            self.screen.notify("Copied the title and abstract", timeout=1.5)

    def copied_text(self, paper) -> str:
        return f"{self.screen.listed_title(paper)}\n\n{paper.plain}"

    def action_help(self) -> None:
        from .dialogs.help import HelpScreen

        self.screen.app.push_screen(HelpScreen())

    def action_progress(self) -> None:
        from .dialogs.progress import ProgressScreen

        self.screen.app.push_screen(ProgressScreen(self.screen.papers))
