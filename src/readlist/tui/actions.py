"""Every user action of the main screen, declared once.

The screen's key bindings, the footer, the `?` help screen and the command palette are all
built from this table, so they never disagree; each action also names who does it (the main
screen hands it on).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from textual.binding import Binding


@dataclass(frozen=True)
class Action:
    keys: str  # comma-separated Textual key names; empty: offered in the command palette only
    action: str  # action name on the main screen (without "action_")
    description: str  # short label for the footer
    help: str  # one line for the help screen and the command palette
    group: str
    show: bool = True  # in the footer
    palette: bool = True  # offered in the command palette
    priority: bool = False  # handled before keys typed after it are passed on (see `/`)
    # Who does it: the main screen's attribute (a collaborator, the list, the app) whose `action_<action>` runs.
    by: str = field(kw_only=True)

    @property
    def display_keys(self) -> str:
        names = {
            "question_mark": "?",
            "slash": "/",
            "space": "Space",
            "pageup": "PgUp",
            "pagedown": "PgDn",
            "home": "Home",
            "end": "End",
            "enter": "Enter",
            "escape": "Esc",
            "tab": "Tab",
            "up": "↑",
            "down": "↓",
            "ctrl+p": "Ctrl+P",
            "less_than_sign": "<",
            "greater_than_sign": ">",
            "left_square_bracket": "[",
            "right_square_bracket": "]",
            "backspace": "Backspace",
        }
        return " ".join(names.get(k, k) for k in self.keys.split(",") if k)

    @property
    def label(self) -> str:
        """The line the help screen and the command palette show: what it does, and its keys when it has any."""
        return f"{self.help} ({self.display_keys})" if self.keys else self.help

    def handed_on(self) -> Callable:
        """The screen's `action_<action>` method: it runs the `action_<action>` of the screen's attribute `by`."""
        by, name = self.by, f"action_{self.action}"

        def run(screen):
            return getattr(getattr(screen, by), name)()

        run.__name__ = run.__qualname__ = name
        run.__doc__ = self.help
        return run

    def binding(self) -> Binding:
        return Binding(self.keys, self.action, self.description, show=self.show, priority=self.priority, id=self.action)


ACTIONS: tuple[Action, ...] = (
    # Moving around
    Action(
        "j,down", "cursor_down", "Down", "Move to the next paper", "Move", show=False, palette=False, by="paper_list"
    ),
    Action("k,up", "cursor_up", "Up", "Move to the previous paper", "Move", show=False, palette=False, by="paper_list"),
    Action("g,home", "cursor_first", "First", "Jump to the first paper", "Move", show=False, by="paper_list"),
    Action("G,end", "cursor_last", "Last", "Jump to the last paper", "Move", show=False, by="paper_list"),
    Action("pageup", "page_up", "Page up", "Move up a page", "Move", show=False, palette=False, by="paper_list"),
    Action(
        "pagedown", "page_down", "Page down", "Move down a page", "Move", show=False, palette=False, by="paper_list"
    ),
    Action("slash", "focus_search", "Search", "Focus the search bar", "Move", priority=True, by="navigator"),
    Action(
        "enter",
        "open_detail",
        "Detail",
        "Show the detail pane (narrow layout) or focus it",
        "Move",
        show=False,
        by="navigator",
    ),
    Action(
        "right_square_bracket",
        "focus_related",
        "Related",
        "Go to the related papers (Enter jumps to one; backspace comes back)",
        "Move",
        by="navigator",
    ),
    Action(
        "backspace,left_square_bracket",
        "go_back",
        "Back",
        "Go back to the search, filter and paper a jump (to a related paper, or from the palette) left",
        "Move",
        show=False,
        by="navigator",
    ),
    Action(
        "N",
        "next_unread",
        "Next unread",
        "Jump to the next unread paper in the view",
        "Move",
        show=False,
        by="navigator",
    ),
    Action(
        "f",
        "cycle_filter",
        "Filter",
        "Cycle the quick filter: all / unread / reading / read / starred",
        "View",
        show=False,
        by="navigator",
    ),
    Action(
        "S",
        "cycle_sort",
        "Sort",
        "Cycle the order: file / relevance (searching) / status / starred first / recently changed / year",
        "View",
        show=False,
        by="navigator",
    ),
    Action(
        "greater_than_sign",
        "widen_list",
        "Wider list",
        "Widen the list pane (the detail pane narrows); remembered",
        "View",
        show=False,
        by="navigator",
    ),
    Action(
        "less_than_sign",
        "narrow_list",
        "Narrower list",
        "Narrow the list pane (the detail pane widens); remembered",
        "View",
        show=False,
        by="navigator",
    ),
    Action("p", "progress", "Progress", "Show reading progress", "View", show=False, by="navigator"),
    Action(
        "L",
        "lists",
        "Lists",
        "Show the lists opened with this database and their progress; Enter opens one",
        "View",
        show=False,
        by="app",
    ),
    # Marking papers to act on together
    Action(
        "v", "toggle_mark", "Mark", "Mark or unmark the paper and move to the next", "Mark", show=False, by="marker"
    ),
    Action(
        "V",
        "mark_view",
        "Mark view",
        "Mark every paper in the view; s r 1 2 3 t x y then act on the marked papers (Esc clears)",
        "Mark",
        show=False,
        by="marker",
    ),
    # Annotating
    Action("s", "toggle_star", "Star", "Star or unstar the paper", "Annotate", by="annotator"),
    Action("r", "cycle_status", "Status", "Cycle unread → reading → read", "Annotate", by="annotator"),
    Action("1", "set_unread", "Unread", "Mark the paper unread", "Annotate", show=False, by="annotator"),
    Action("2", "set_reading", "Reading", "Mark the paper as being read", "Annotate", show=False, by="annotator"),
    Action("3", "set_read", "Read", "Mark the paper read", "Annotate", show=False, by="annotator"),
    Action(
        "space",
        "read_and_next",
        "Read+next",
        "Mark the paper read and move to the next",
        "Annotate",
        show=False,
        by="annotator",
    ),
    Action("n", "edit_note", "Note", "Edit the note (ctrl+s saves)", "Annotate", by="annotator"),
    Action("e", "external_note", "Note in $EDITOR", "Edit the note in $EDITOR", "Annotate", show=False, by="annotator"),
    Action("t", "edit_tags", "Tags", "Edit the tags", "Annotate", show=False, by="annotator"),
    Action(
        "T",
        "edit_title",
        "Title",
        "Give the paper your own title (empty: its own again)",
        "Annotate",
        show=False,
        by="annotator",
    ),
    Action("u", "undo", "Undo", "Undo the last change", "Annotate", show=False, by="annotator"),
    Action(
        "R",
        "mark_view_read",
        "All read",
        "Mark every paper in the view read (asks first)",
        "Annotate",
        show=False,
        by="annotator",
    ),
    # Elsewhere
    Action(
        "o",
        "open_link",
        "Open link",
        "Open the paper's PDF or page, else a web search",
        "Other",
        show=False,
        by="navigator",
    ),
    Action(
        "O", "pick_link", "Links", "Pick a link (the paper's, the note's) to open", "Other", show=False, by="navigator"
    ),
    Action(
        "F",
        "find_online",
        "Find online",
        "Find this paper online: its real title, authors, venue and links (the marked papers, when any; again: stop)",
        "Other",
        show=False,
        by="finder",
    ),
    Action(
        "",
        "find_view_online",
        "Find view online",
        "Find the papers in the view online (asks first when many; Esc in the list stops)",
        "Other",
        show=False,
        by="finder",
    ),
    Action(
        "A",
        "accept_match",
        "Accept match",
        "Accept the possible match found online for the paper (several: pick one)",
        "Other",
        show=False,
        by="finder",
    ),
    Action(
        "x", "export", "Export", "Export: Markdown, JSON, CSV, BibTeX or CSL-JSON", "Other", show=False, by="exporter"
    ),
    Action("y", "copy", "Copy", "Copy the title and abstract to the clipboard", "Other", show=False, by="navigator"),
    Action("question_mark", "help", "Help", "Show all keys", "Other", by="navigator"),
    Action("q", "quit", "Quit", "Quit readlist", "Other", by="app"),
)


def bindings() -> list[Binding]:
    return [action.binding() for action in ACTIONS if action.keys]


def list_bindings() -> list[Binding]:
    """The moves again, for the focused list itself: they replace its scroll view's own arrow keys."""
    return [Binding(a.keys, a.action, a.description, show=False) for a in ACTIONS if a.by == "paper_list"]
