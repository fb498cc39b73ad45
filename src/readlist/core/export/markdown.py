"""The Markdown export: a section per paper with its marks, authors, venue, year and links, the abstract quoted,
and the note rendered as Markdown, kept inside its paper's section whatever it holds."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..papers.describe import where_and_ids
from ..papers.links import IN_ABSTRACT, source_links
from ..papers.paper import Paper
from ..text.normalize import strip_control
from .common import annotation_fields, shown_title, without_escapes

# `<` and `&name;` would be read as HTML (an unknown tag such as <think> vanishes when rendered); an odd run of
# backslashes before them would escape the `&` of the replacement, so it gets one more.
_MD_HTML = re.compile(r"(\\*)(<|&(?=#?[0-9A-Za-z]+;))")
# A first character that could open a block: a heading, a list, a link definition for the whole document.
_MD_BLOCK_START = re.compile(r"^(?=[#>\[\-+*=_`~|])")


def _html_escape(match: re.Match[str]) -> str:
    backslashes = match.group(1) + "\\" * (len(match.group(1)) % 2)
    return backslashes + ("&lt;" if match.group(2) == "<" else "&amp;")


def _markdown_text(text: str) -> str:
    """Plain text as one line of Markdown text that reads as written, never as HTML."""
    return _MD_HTML.sub(_html_escape, " ".join(text.split()))


# A heading's closing run of '#' (after a space) is not shown: "C #" would read as "C".
_MD_CLOSING_HASHES = re.compile(r"(^|[ \t])(#+)$")


def _heading(text: str) -> str:
    """Plain text as the text of an ATX heading that shows all of it."""
    return _MD_CLOSING_HASHES.sub(lambda m: m.group(1) + "\\" + m.group(2), _markdown_text(text))


def _quote(text: str) -> str:
    """Plain text as a one-line block quote holding one paragraph."""
    return "> " + _MD_BLOCK_START.sub("\\\\", _markdown_text(text))


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall("`+", text)), default=0)


def _code_span(text: str) -> str:
    """`text` as inline code that its own backticks cannot close."""
    ticks = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


# A note's lines that would reach past it: a code fence (left open, it would take in the rest of the file), a
# heading (a section of its own), a setext heading's underline, a link definition (for the whole document).
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NOT_PARAGRAPH = re.compile(r"^\s*$|^ {0,3}(?:[#>]|[-+*][ \t]|\d{1,9}[.)][ \t])|^(?: {4}|\t)")
_LINK_DEFINITION = re.compile(r"^( {0,3})(?=\[[^\]]*\]:)")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")
NOTE_HEADINGS = 3  # a note's top heading level: below the paper's (##)


def _inline(line: str) -> str:
    """A line of a note with HTML and entities shown as written, except inside its code spans."""
    out, at = [], 0
    for span in _CODE_SPAN.finditer(line):
        out += [_MD_HTML.sub(_html_escape, line[at : span.start()]), span.group(0)]
        at = span.end()
    return "".join(out) + _MD_HTML.sub(_html_escape, line[at:])


def note_markdown(note: str) -> str:
    """A note as Markdown that stays inside its paper's section: headings moved below the paper's (`#` is `###`),
    a code fence left open closed, HTML and link definitions shown as written; code blocks are kept as they are."""
    out: list[str] = []
    fence: str | None = None  # the fence that closes the code block being read
    for line in note.split("\n"):
        if fence is not None:
            found = _FENCE.match(line)  # a closing fence: as long or longer, of the same character, alone
            if found and found.group(1).startswith(fence) and not found.group(2).strip():
                fence = None
            out.append(line)
            continue
        found = _FENCE.match(line)
        if found and not (found.group(1)[0] == "`" and "`" in found.group(2)):
            fence = found.group(1)
            out.append(line)
        elif found := _ATX.match(line):
            level = min(6, len(found.group(2)) + NOTE_HEADINGS - 1)
            out.append(found.group(1) + "#" * level + _inline(line[found.end() :]))
        elif (found := _SETEXT.match(line)) and out and not _NOT_PARAGRAPH.match(out[-1]):
            level = NOTE_HEADINGS if found.group(1)[0] == "=" else NOTE_HEADINGS + 1
            out[-1] = "#" * level + " " + out[-1].strip()
        elif line.startswith(("    ", "\t")) and (not out or not out[-1].strip() or out[-1].startswith(("    ", "\t"))):
            out.append(line)  # an indented code block
        else:
            out.append(_LINK_DEFINITION.sub(r"\1\\", _inline(line)))
    if fence is not None:
        out.append(fence)
    return "\n".join(out)


def _link(text: str, url: str) -> str:
    """A Markdown link to `url` whatever it holds (the pointed brackets take spaces and parentheses)."""
    target = strip_control(url).replace("<", "%3C").replace(">", "%3E").replace(" ", "%20")
    return f"[{_markdown_text(text)}](<{target}>)"


def record_lines(paper: Paper) -> list[str]:
    """What the paper's record says of it: its authors, venue, year and ids, then its links (the PDF, landing
    page, DOI and arXiv pages; the abstract's own links are in the abstract). None when it says nothing."""
    said = " · ".join(part for part in (", ".join(paper.authors), where_and_ids(paper)) if part)
    links = " · ".join(_link(link.label, link.url) for link in source_links(paper) if link.label != IN_ABSTRACT)
    return [line for line in (_markdown_text(said), links) if line]


def to_markdown(papers: Sequence[Paper], annotations: Mapping[str, Any], heading: str = "Reading notes") -> str:
    """One section per paper: title, marks, what the paper file says of it, the abstract quoted, the note."""
    return "".join(markdown_parts(papers, annotations, heading))


def markdown_parts(
    papers: Iterable[Paper], annotations: Mapping[str, Any], heading: str = "Reading notes"
) -> Iterator[str]:
    """`to_markdown`'s text a paper at a time (the heading first), made as it is printed."""
    yield f"# {_heading(strip_control(heading))}\n"
    for paper in map(without_escapes, papers):
        note = annotations.get(paper.id)
        f = annotation_fields(note)
        meta = [f"`{paper.id}`", f"#{paper.index}", f["status"]]
        if f["starred"]:
            meta.append("★ starred")
        if f["tags"]:
            meta.append("tags: " + ", ".join(_code_span(tag) for tag in f["tags"]))
        title = _heading(shown_title(paper, note))
        section = [f"## {title}", "", " · ".join(meta), ""]
        if record := record_lines(paper):
            section += [_MD_BLOCK_START.sub("\\\\", "  \n".join(record)), ""]  # two spaces: a line break
        section.append(_quote(strip_control(paper.plain)))
        if f["note"].strip():
            section += ["", note_markdown(f["note"].strip("\n"))]
        yield "\n" + "\n".join(section) + "\n"
