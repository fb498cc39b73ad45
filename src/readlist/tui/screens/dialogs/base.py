"""The dialogs' common part: a modal screen closed once, one that Esc cancels, dismissing with None, and one
choosing an item of a list."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

Result = TypeVar("Result")


class Modal(ModalScreen[Result]):
    """A modal screen that closes once: a second Enter or Esc, read with the first, is ignored."""

    def dismiss(self, result: Result | None = None) -> AwaitComplete:
        """Dismiss only while on top: a key queued for this screen after it closed would otherwise pop the
        screen beneath it (Textual pops whatever screen is on top), leaving a blank one."""
        if not self.is_active:
            return AwaitComplete.nothing()
        return super().dismiss(result)


class Dialog(Modal[Result]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceDialog(Dialog[Result]):
    """A heading, a list to choose one item from (the `highlight`-th highlighted, the first unless set) and a hint:
    Enter dismisses with the value of the item chosen, Esc with None. Its boxes are `#<NAME>-dialog` and
    `#<NAME>-list`."""

    NAME = "choice"
    highlight = 0  # the item highlighted first

    def __init__(self, heading: Text, choices: Sequence[tuple[Text, Result]], hint: str) -> None:
        super().__init__()
        self.heading = heading
        self.choices = tuple(choices)
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(id=f"{self.NAME}-dialog", classes="dialog"):
            yield Static(self.heading, classes="dialog-title")
            options = (Option(prompt, id=str(n)) for n, (prompt, _) in enumerate(self.choices))
            yield OptionList(*options, id=f"{self.NAME}-list")
            yield Static(self.hint, classes="dialog-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = self.highlight
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[int(event.option.id or 0)][1])
