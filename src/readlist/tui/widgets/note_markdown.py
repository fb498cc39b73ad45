"""A note's Markdown as the detail pane draws it: headings, lists, emphasis, code, quotes, tables and links, parsed by
the Markdown parser Textual's own Markdown support is built on (markdown-it) and drawn as one literal Text.

Nothing in a note is read as Rich or Textual markup (each piece of text is appended as it is, without control
characters), and a link is shown with its address, never made clickable: it is opened with a key (`O` lists the
note's links with the paper's). A note past NOTE_SHOWN characters is shown up to there (at a line's end), saying
how much more there is: parsing and wrapping a megabyte for every move of the cursor would stall the list.
"""

from __future__ import annotations

from functools import lru_cache

from rich.style import Style
from rich.text import Text

from ...core.text.normalize import strip_control

NOTE_SHOWN = 20_000  # characters of a note the detail pane draws; `n` opens all of it
TAB = 4
STYLES = {
    "strong": Style(bold=True),
    "em": Style(italic=True),
    "s": Style(strike=True),
    "link": Style(underline=True),
}
CODE = Style(color="cyan")
DIM = Style(dim=True)
HEADING = {"h1": Style(bold=True, underline=True), "h2": Style(bold=True)}
BULLETS = "•◦▪"


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt

    # CommonMark with tables and strikethrough; raw HTML is shown as the text it is (html_* tokens, below).
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def _clean(text: str) -> str:
    return strip_control(text.expandtabs(TAB))


def note_links(note: str) -> list[str]:
    """The addresses the note links to, in order, each once (what `O` offers besides the paper's own)."""
    seen: dict[str, None] = {}
    for token in _parser().parse(_shown(note)[0]):
        for child in token.children or ():
            href = child.attrGet("href") if child.type == "link_open" else None
            if isinstance(href, str) and href.strip():
                seen.setdefault(_clean(href), None)
    return list(seen)


def _shown(note: str) -> tuple[str, int]:
    """The part of the note drawn (cut at the end of a line when it is long) and how many characters are left out."""
    if len(note) <= NOTE_SHOWN:
        return note, 0
    cut = note.rfind("\n", 0, NOTE_SHOWN)
    cut = cut if cut > NOTE_SHOWN // 2 else NOTE_SHOWN
    return note[:cut], len(note) - cut


@lru_cache(maxsize=16)  # the same note again (the paper redrawn after a star) costs nothing
def note_text(note: str) -> Text:
    """The note drawn from its Markdown, as one Text of literal pieces."""
    shown, left_out = _shown(note)
    text = _Drawer().draw(_parser().parse(shown))
    if left_out:
        text.append(f"\n\n… {left_out:,} more characters of the note — n opens all of it", DIM)
    return text


class _Drawer:
    """Walks markdown-it's block tokens, appending each block's lines to one Text."""

    def __init__(self) -> None:
        self.text = Text()
        self.last = "\n"  # the last character appended to `text` ("\n" at the start: no line to end)
        self.style: Style | None = None  # a heading's, for its inline text
        self.prefixes: list[str] = []  # what starts each line inside quotes and lists
        self.lists: list[int | None] = []  # the open lists: the next number of an ordered one, None for bullets
        self.item_start = ""  # the bullet or number the next line of a list item starts with
        self.row: list[Text] = []  # the cells of a table row being read
        self.cell: Text | None = None  # the cell being read

    def draw(self, tokens) -> Text:
        for token in tokens:
            handler = getattr(self, f"_{token.type}", None)
            if handler is not None:
                handler(token)
        self.text.rstrip()
        return self.text

    def put(self, piece: str, style: Style | None = None) -> None:
        if piece:
            (self.cell if self.cell is not None else self.text).append(piece, style)
            if self.cell is None:
                self.last = piece[-1]

    # -- lines ------------------------------------------------------------------------------
    def _line_start(self) -> None:
        """A new line, starting with the quotes' and lists' indents, or the list item's bullet."""
        if self.last != "\n":
            self.put("\n")
        indent = "".join(self.prefixes)
        if self.item_start:
            indent, self.item_start = indent[: -len(self.item_start)] + self.item_start, ""
        self.put(indent, DIM)

    def _block_end(self) -> None:
        """A blank line after a block, but inside a list (whose items follow line by line)."""
        if not self.lists:
            if self.last != "\n":
                self.put("\n")
            self.put("\n")

    # -- blocks -----------------------------------------------------------------------------
    def _heading_open(self, token) -> None:
        self._line_start()
        self.style = HEADING.get(token.tag, Style(bold=True, italic=True))

    def _heading_close(self, token) -> None:
        self.style = None
        self._block_end()

    def _paragraph_open(self, token) -> None:
        self._line_start()

    def _paragraph_close(self, token) -> None:
        if not token.hidden:  # a tight list's paragraphs follow line by line
            self._block_end()

    def _inline(self, token) -> None:
        self._inlines(token.children or [], self.style)

    def _bullet_list_open(self, token) -> None:
        self.lists.append(None)

    def _ordered_list_open(self, token) -> None:
        start = str(token.attrGet("start") or 1)
        self.lists.append(int(start) if start.isdigit() else 1)

    def _bullet_list_close(self, token) -> None:
        self.lists.pop()
        self._block_end()

    _ordered_list_close = _bullet_list_close

    def _list_item_open(self, token) -> None:
        number = self.lists[-1]
        if number is None:
            mark = f"{BULLETS[(len(self.lists) - 1) % len(BULLETS)]} "
        else:
            mark, self.lists[-1] = f"{number}. ", number + 1
        self.prefixes.append(" " * len(mark))
        self.item_start = mark

    def _list_item_close(self, token) -> None:
        self.prefixes.pop()
        self.item_start = ""

    def _blockquote_open(self, token) -> None:
        self.prefixes.append("▌ ")

    def _blockquote_close(self, token) -> None:
        self.prefixes.pop()

    def _fence(self, token) -> None:
        for line in token.content.rstrip("\n").split("\n"):
            self._line_start()
            self.put(_clean(line), CODE)
        self._block_end()

    _code_block = _fence

    def _html_block(self, token) -> None:  # shown as written: a note's `<details>` is its text
        for line in token.content.rstrip("\n").split("\n"):
            self._line_start()
            self.put(_clean(line))
        self._block_end()

    def _hr(self, token) -> None:
        self._line_start()
        self.put("─" * 20, DIM)
        self._block_end()

    # -- tables: a row a line, its cells between bars ------------------------------------------
    def _tr_open(self, token) -> None:
        self.row = []

    def _th_open(self, token) -> None:
        self.cell = Text()
        self.row.append(self.cell)

    _td_open = _th_open

    def _th_close(self, token) -> None:
        self.cell = None

    _td_close = _th_close

    def _tr_close(self, token) -> None:
        self._line_start()
        for n, cell in enumerate(self.row):
            self.put(" │ " if n else "", DIM)
            self.text.append_text(cell)
        self.last = "│"

    def _table_close(self, token) -> None:
        self._block_end()

    # -- inline -------------------------------------------------------------------------------
    def _inlines(self, children, base: Style | None) -> None:
        styles: list[Style] = [base] if base else []
        links: list[tuple[str, list[str]]] = []  # the links open: each one's address and the text shown for it
        for child in children:
            kind, style = child.type, Style.chain(*styles) if styles else None
            if kind in ("text", "html_inline", "code_inline"):  # HTML as the text it is
                piece = _clean(child.content)
                self.put(piece, Style.chain(*styles, CODE) if kind == "code_inline" else style)
                if links:
                    links[-1][1].append(piece)
            elif kind in ("softbreak", "hardbreak"):  # the note's own line breaks are kept
                self.put("\n")
                self.put("".join(self.prefixes), DIM)
            elif kind.endswith("_open") and kind.removesuffix("_open") in STYLES:
                styles.append(STYLES[kind.removesuffix("_open")])
                if kind == "link_open":
                    links.append((_clean(str(child.attrGet("href") or "")), []))
            elif kind.endswith("_close") and kind.removesuffix("_close") in STYLES:
                if len(styles) > (1 if base else 0):
                    styles.pop()
                if kind == "link_close" and links:
                    href, shown = links.pop()
                    self._address(href, "".join(shown))
            elif kind == "image":
                self.put(f"[image: {_clean(child.content)}]", style)
                self._address(_clean(str(child.attrGet("src") or "")), "")

    def _address(self, href: str, shown: str) -> None:
        """A link's address after its text, unless the text is the address itself (<https://…>)."""
        if href and shown != href:
            self.put(f" <{href}>", DIM)
