"""The footer: Textual's, leaving out what a narrow screen has no room for, so that Quit always shows."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# Keys a compact footer leaves out while the narrow detail pane's own key (Esc, back to the list) takes the room;
# the pane names its related papers, and `?` lists every key.
LEFT_OUT_BESIDE_DETAIL = frozenset({"focus_related"})
DETAIL_BACK = "screen.close_detail"


class ReadlistFooter(Footer):
    def compose(self) -> ComposeResult:
        shown = list(super().compose())
        if self.compact and any(isinstance(item, FooterKey) and item.action == DETAIL_BACK for item in shown):
            kept = [item for item in shown if not _left_out(item)]
            self.styles.grid_size_columns = max(1, (self.styles.grid_size_columns or 0) - (len(shown) - len(kept)))
            shown = kept
        yield from shown


def _left_out(item) -> bool:
    return isinstance(item, FooterKey) and item.action in LEFT_OUT_BESIDE_DETAIL
