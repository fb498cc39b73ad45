"""The `?` screen: every key, from the same table as the bindings and the palette."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..actions import ACTIONS

EXTRA = (
    ("Search bar", "Enter / ↓", "Go to the results, keeping the query"),
    ("Search bar", "Esc", "Clear the query; a second Esc leaves the search bar"),
    ("Search bar", 'words "phrase" -word', "All words must match; exact phrase; exclude a word"),
    ("Search bar", "title: note: tag: id:", "Search one field (tag:name, id:prefix)"),
    ("Search bar", "is:starred is:unread …", "is:reading is:read is:noted is:missing"),
    ("Anywhere", "Tab / Shift+Tab", "Move between the search bar, the list and the detail pane"),
    ("Anywhere", "Ctrl+P", "Command palette: every action, and jump to a paper by title"),
    ("Anywhere", "Mouse", "Click a row to select it (double-click opens it); the wheel scrolls"),
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        table = Table(show_header=True, header_style="bold", expand=True, box=None, pad_edge=False)
        table.add_column("Group", style="dim", no_wrap=True)
        table.add_column("Keys", style="bold cyan", no_wrap=True)
        table.add_column("What it does")
        for action in ACTIONS:
            table.add_row(action.group, action.display_keys, action.help)
        for group, keys, what in EXTRA:
            table.add_row(group, keys, what)
        with VerticalScroll(id="help-dialog", classes="dialog"):
            yield Static(Text("readlist — keys", style="bold"), classes="dialog-title")
            yield Static(table, id="help-table")
            yield Static("Esc, q or ? closes this screen", classes="dialog-hint")

    def action_dismiss(self) -> None:
        self.dismiss(None)
