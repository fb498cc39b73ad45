"""The header line: list name, live counts, the active filter, query and order, and the papers marked."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from ..display import safe

GAP = "  "
NAME_MIN = 6  # cells the list's name keeps (ellipsis included) before it is left out
NAME_BESIDE_EXTRAS = 12  # the same beside the long counts or the query, which are left out first


@dataclass(frozen=True)
class Counts:
    total: int
    read: int = 0
    reading: int = 0
    starred: int = 0


@dataclass(frozen=True)
class Fit:
    """How much of the header shows: the counts and the number of papers missing a word each "long",
    "short" or "" (left out); the query and the list's name, or not."""

    counts: str = "long"
    query: bool = True
    partial: str = "long"
    name: bool = True


# Tried in turn until the header fits: wording shortened, then the parts least needed left out whole.
FITS = (
    Fit(),
    Fit(query=False),  # the search bar shows it anyway
    Fit(counts="short"),
    Fit(counts="short", query=False),
    Fit(counts="short", query=False, partial="short"),
    Fit(counts="short", query=False, partial="short", name=False),
    Fit(counts="", query=False, partial="short", name=False),
    Fit(counts="", query=False, partial="", name=False),
)


class StatusLine(Static):
    def show(self, *parts, **named) -> None:
        """The header for the screen's width; `parts` are `header`'s after the width."""
        # Its size never follows its text (one line, the screen's width, the text fitted to it): no layout pass, which
        # costs the whole screen's, at each key typed in the search bar.
        self.update(header(self.app.size.width - 2, *parts, **named), layout=self.styles.auto_dimensions)


def header(
    width: int,
    name: str,
    counts: Counts,
    quick_filter: str,
    query: str,
    matches: int | None,
    note: str = "",
    partial: int = 0,
    *,
    marked: int = 0,
    order: str = "",
    busy: str = "",
) -> Text:
    """The header for `width` cells, as complete as fits (see FITS), never cut inside a word."""
    query = query.strip()
    counts_text = {
        "long": f"{counts.total} papers · {counts.read} read · {counts.reading} reading · {counts.starred} starred",
        "short": f"{counts.total} papers · {counts.read}● {counts.reading}◐ {counts.starred}★",
    }
    partial_text = {"long": f" (+{partial} missing a word)", "short": f" (+{partial} partial)"}

    def parts(fit: Fit) -> list[Text]:
        """Everything but the name (what the view is: the query itself is in the bar)."""
        shown = [Text(counts_text[fit.counts])] if fit.counts else []
        if fit.query and query:
            shown.append(Text.assemble("query: ", (safe(query), "italic")))
        if quick_filter != "all":
            shown.append(Text(f"filter: {quick_filter}", "bold"))
        if matches is not None and (query or quick_filter != "all"):
            found = Text.assemble((f"→ {matches} match{'es' if matches != 1 else ''}", "bold"))
            if partial and fit.partial:
                found.append(partial_text[fit.partial])
            shown.append(found)
        if order:
            shown.append(Text(f"sort: {order}", "bold"))
        if marked:
            shown.append(Text(f"{marked} marked", "bold reverse"))
        if busy:  # work going on in the background ("resolving 3/19")
            shown.append(Text(busy, "bold"))
        if note:
            shown.append(Text(safe(note), "dim"))
        return shown

    title = Text(safe(name), style="bold")
    for fit in FITS:
        shown = parts(fit)
        room = width - sum(part.cell_len + len(GAP) for part in shown)
        if fit.name:
            least = NAME_BESIDE_EXTRAS if (fit.query and query) or fit.counts == "long" else NAME_MIN
            if room < min(title.cell_len, least):
                continue
            shown.insert(0, cut_after_word(title, room))
        elif room + len(GAP) < 0:
            continue
        return Text(GAP, no_wrap=True).join(shown)
    return cut_after_word(Text(GAP, no_wrap=True).join(parts(FITS[-1])), width)


def cut_after_word(text: Text, width: int) -> Text:
    """`text` cut to `width` cells after its last whole word that fits, with an ellipsis (inside the first word
    when even that is too long)."""
    if text.cell_len <= width:
        return text
    plain = text.plain
    end = len(plain)
    while end > 0 and (end == len(plain) or cell_len(plain[:end].rstrip()) >= width):
        end = plain.rfind(" ", 0, end)
    if end <= 0 or not plain[:end].strip():
        cut = text.copy()
        cut.truncate(width, overflow="ellipsis")
        return cut
    cut = text[:end]
    cut.rstrip()
    cut.append("…")
    return cut
