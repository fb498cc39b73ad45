"""The dialogs' common part: a modal screen closed once, and one that Esc cancels, dismissing with None."""

from __future__ import annotations

from typing import TypeVar

from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.screen import ModalScreen

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
