"""The `?` screen: every key, from the same table as the bindings and the palette."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from ....core.search.query import OPERATORS
from ...actions import ACTIONS
from .base import Modal

KEYS_FLAGS = 2  # flags named in the Keys column; the description names the rest
KEYS_FIELDS = 4  # fields named in one row's Keys column (more would squeeze the descriptions)


def query_rows() -> tuple[tuple[str, str, str], ...]:
    """The query language's named forms, from its table: the fields, a few a row (with what they take, when
    not a word), then the flags."""
    fields = [op for op in OPERATORS if not op.flag]
    rows = []
    for start in range(0, len(fields), KEYS_FIELDS):
        some = fields[start : start + KEYS_FIELDS]
        takes = ", ".join(f"{op.label}{op.value}" for op in some if op.value != "word")
        rows.append(("Search bar", " ".join(op.label for op in some), f"Search one field ({takes})"))
    flags = [op.label for op in OPERATORS if op.flag]
    return (*rows, ("Search bar", " ".join(flags[:KEYS_FLAGS]) + " …", " ".join(flags[KEYS_FLAGS:])))


EXTRA = (
    ("Search bar", "Enter / ↓", "Go to the results, keeping the query"),
    ("Search bar", "Esc", "Clear the query; a second Esc leaves the search bar"),
    ("Search bar", 'words "phrase" -word', "All words must match; exact phrase; exclude a word"),
    *query_rows(),
    ("List", "Esc", "Clear the search; after a related-paper jump, bring back the search and filter it cleared"),
    ("List", "Esc", "With papers marked (v, V): clear the marks first, asking when there are many"),
    ("Anywhere", "Tab / Shift+Tab", "Move between the search bar, the list and the detail pane"),
    ("Anywhere", "Ctrl+P", "Command palette: every action, and jump to a paper found as the search bar finds it"),
    ("Anywhere", "Mouse", "Click a row to select it (double-click opens it); the wheel scrolls"),
)


NARROW = 80  # fewer columns than this: no Group column, and the dialog takes the whole width
NARROW_KEYS = 14  # the Keys column's width then


def keys_table(groups: bool = True) -> Table:
    """Every key and what it does; `groups` adds the Group column (left out when narrow, where it and
    the keys left the descriptions a word per line)."""
    table = Table(show_header=True, header_style="bold", expand=True, box=None, pad_edge=False)
    if groups:
        table.add_column("Group", style="dim", no_wrap=True)
        table.add_column("Keys", style="bold cyan", no_wrap=True)
    else:  # the longest keys (search forms) wrap too, rather than take half the width
        table.add_column("Keys", style="bold cyan", max_width=NARROW_KEYS)
    table.add_column("What it does")
    rows = [(action.group, action.display_keys or "Ctrl+P", action.help) for action in ACTIONS] + list(EXTRA)
    for group, keys, what in rows:
        table.add_row(*((group, keys, what) if groups else (keys, what)))
    return table


class HelpScreen(Modal[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog", classes="dialog"):
            yield Static(Text("readlist — keys", style="bold"), classes="dialog-title")
            yield Static(id="help-table")
            yield Static("Esc, q or ? closes this screen", classes="dialog-hint")

    def on_mount(self) -> None:
        self.fit_width(self.app.size.width)

    def on_resize(self, event) -> None:
        self.fit_width(event.size.width)

    def fit_width(self, width: int) -> None:
        narrow = width < NARROW
        self.set_class(narrow, "narrow")
        self.query_one("#help-table", Static).update(keys_table(groups=not narrow))

    def action_dismiss(self) -> None:
        self.dismiss(None)
