"""Text normalisation: ids, display form (LaTeX to Unicode), control characters, links."""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

# C0/C1 control characters except tab and newline (ESC, BEL, CSI and friends), bidi controls and line
# separators, and what prints as nothing or hides text: soft hyphens, byte-order marks, tag characters.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff"
    "\U000e0000-\U000e007f]"
)
# Whole terminal escape sequences: strings up to BEL or ST (OSC window titles and links, DCS, APC, PM, SOS),
# CSI (colours, cursor moves) and two-character ones (ESC c, ESC ( B). A string is not followed past a line end.
# Whole sequences introduced by ESC; a lone C1 byte (often text read in the wrong encoding: "â\x80\x9d")
# is dropped alone by _CONTROL, never taken with the words after it.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b[\]P^_X][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[ -/]*[0-~]"
)
# A link runs to white space or a quote; braces and backslashes are part of it (`a{b}`, `x\d`), except a
# closing brace it never opened (`\url{https://x.org}`).
_URL = re.compile(r"https?://[^\s<>\"'`\]\[]+", re.IGNORECASE)
_URL_TRAIL = ".,;:!?)'\"\\"

# Spans that look like LaTeX: inline math, a command with braced arguments, or an escape.
_LATEX_SPAN = re.compile(
    r"\$\$.+?\$\$"
    r"|\$[^$\n]{1,400}?\$"
    r"|\\[A-Za-z]+\*?(?:\s*\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\})*"
    r"|\\[%&_#${}~^ ,;!]"
)
# A word in a span opened by `$` and a digit: "$100 million ... to $" is money, not math ("$2\times$" is math).
_PROSE_WORD = re.compile(r"(?<![\\{\w])[^\W\d_]{2,}")
# In abstracts a bare `%` is a percent sign, never a LaTeX comment (which would drop the rest of the line).
_BARE_PERCENT = re.compile(r"(?<!\\)((?:\\\\)*)%")
# Braces inside a word, left by LaTeX emphasis of single letters: "{G}eneration" reads "Generation".
# Not after a command name: "\frac{a}" stays.
_WORD_BRACES = re.compile(r"(?<![\w\\])([^\W_]+)\{([^\W_]+)\}|(?<![\w\\])\{([^\W_]+)\}(?=[^\W_])")
_MD_EMPH = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
_MD_CODE = re.compile(r"`([^`\n]+)`")
# A line-break hyphen: "wit- nessed". Kept when the next word joins a list ("pre- and post-").
_BREAK_HYPHEN = re.compile(r"\b([A-Za-z]+)- ([a-z]+)\b")
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_HYPHEN_KEEP = frozenset({"and", "or", "nor", "to", "vs", "versus", "as", "but", "with", "than"})
_TIE = re.compile(r"(?<=[\w.,;:)}])~(?=[(\\$A-Za-z])")

_EXTRA_TEXT_MACROS = (
    "texttt",
    "textsf",
    "textnormal",
    "textup",
    "textmd",
    "textsl",
    "operatorname",
    "boldsymbol",
    "bm",
    "mathbfit",
    "mathnormal",
    "textsuperscript",
    "textsubscript",
    "uline",
    "mbox",
    "hbox",
    "ensuremath",
    "textcolor",
    "url",
    "href",
)


def normalize_ws(text: str) -> str:
    """NFC-normalise and collapse all whitespace runs to one space."""
    if text.isascii():
        # The common case, checked with C-speed substring tests: already one space between words (written out: a
        # generator over them cost as much as the tests, and `to_plain` asks twice an abstract).
        if (
            "  " not in text
            and "\n" not in text
            and "\t" not in text
            and "\r" not in text
            and "\x0b" not in text
            and "\x0c" not in text
            and text[:1] != " "
            and text[-1:] != " "
        ):
            return text
    elif not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def paper_id(text: str) -> str:
    """12 hex digits naming a paper's text, independent of wrapping and line endings."""
    return hashlib.blake2b(normalize_ws(text).encode("utf-8"), digest_size=6).hexdigest()


def strip_control(text: str, keep_tabs: bool = False) -> str:
    """Remove terminal escape sequences whole (of an ESC ]0;title BEL or a colour code nothing is left
    behind, not "]0;title" or "[31m"), then control characters (ESC, BEL, ...) and bidi/line-separator
    controls; tabs become spaces unless `keep_tabs` (a note printed as written, Markdown indentation and all)."""
    if _printable(text):  # none of them (they are all unprintable): the common case, at C speed (`list --json`
        return text  # of 100,000 papers scanned each abstract with the pattern twice)
    if has_escape(text):
        text = _ESCAPE_SEQUENCE.sub("", text)
    return _CONTROL.sub("", text if keep_tabs else text.replace("\t", " "))


_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))
_PRINTABLE_ASCII_AND_LF = _PRINTABLE_ASCII + b"\n"


def _printable(text: str, line_breaks: bool = False) -> bool:
    """`text.isprintable()`, line breaks counted printable if `line_breaks`: ASCII text (most abstracts) is checked as
    bytes, four times as fast as `isprintable` looks up each character (a quarter second of 100,000 abstracts)."""
    if text.isascii():
        return not text.encode("ascii").translate(None, _PRINTABLE_ASCII_AND_LF if line_breaks else _PRINTABLE_ASCII)
    return (text.replace("\n", "") if line_breaks else text).isprintable()


def escape_controls_in_json(text: str) -> str:
    """JSON text with every character `strip_control` removes written as a \\u escape (a JSON reader gets
    the exact data; a terminal shows six harmless characters instead of obeying a CSI or reordering text)."""
    if _printable(text, line_breaks=True):  # none (see `strip_control`); JSON's own line breaks aside
        return text
    return _CONTROL.sub(_json_escape, text)


def controls_in_utf8_json(data: bytes) -> bool:
    """Whether UTF-8 JSON text holds a character `escape_controls_in_json` writes as an escape. Only the bytes of other
    characters than printable ASCII are decoded and looked at (few: `list --json` of 100,000 papers looked at every
    character for 0.7 s): what is left of UTF-8 once its ASCII bytes are taken out is UTF-8, its other characters whole.
    """
    rest = data.translate(None, _PRINTABLE_ASCII_AND_LF).decode()
    return bool(rest) and escape_controls_in_json(rest) != rest


def _json_escape(match: re.Match[str]) -> str:
    units = match.group().encode("utf-16-be")
    return "".join(f"\\u{int.from_bytes(units[i : i + 2]):04x}" for i in range(0, len(units), 2))


def visible_controls(text: str) -> str:
    """`text` with every character `strip_control` removes written as it is in Python (\\x1b, \\u202e): for a
    message naming a file, whose name must stay recognisable but must not move the cursor or retitle the window."""
    return _CONTROL.sub(lambda match: repr(match.group())[1:-1], text)


def quoted(text: str) -> str:
    """`text` in quotes for a message, as written: 'a \\emph b' stays one backslash (repr doubled it)."""
    return f'"{text}"' if "'" in text and '"' not in text else f"'{text}'"


def has_escape(text: str) -> bool:
    """Whether `text` may hold a terminal escape sequence (an ESC); quick on plain text."""
    return "\x1b" in text


def _cut_at_unopened_brace(url: str) -> str:
    depth = 0
    for at, char in enumerate(url):
        if char == "{":
            depth += 1
        elif char == "}":
            if not depth:
                return url[:at]
            depth -= 1
    return url


def find_urls(text: str) -> tuple[str, ...]:
    if "://" not in text:  # most abstracts: not scanned with the pattern
        return ()
    urls: list[str] = []
    for match in _url_matches(text):
        url = _cut_at_unopened_brace(match.group(0)).rstrip(_URL_TRAIL)
        if url.count("(") < url.count(")"):
            url = url.rstrip(")")
        if url not in urls and len(url) > len("https://"):
            urls.append(url)
    return tuple(urls)


def _url_matches(text: str) -> Iterator[re.Match[str]]:
    """`_URL.finditer(text)`, the pattern tried only where a link can start, "http" or "https" before a "://": tried
    at every place of an abstract (it ignores case, so it cannot look for its first letters quickly) it was slow."""
    done = 0  # the end of the last match: the next starts there or after it
    at = text.find("://", 4)
    while at >= 0:
        match = None
        for start in (at - 5, at - 4):
            if start >= done and (match := _URL.match(text, start)) is not None:
                break
        if match is None:
            at = text.find("://", at + 1)
            continue
        yield match
        done = match.end()
        at = text.find("://", done + 4)


@lru_cache(maxsize=1)
def _converter():
    from pylatexenc import latex2text, latexwalker, macrospec

    logging.getLogger("pylatexenc").setLevel(logging.CRITICAL)  # never let it print into a terminal UI

    walker_db = latexwalker.get_default_latex_context_db()
    walker_db.add_context_category(
        "readlist",
        prepend=True,
        macros=[macrospec.MacroSpec(name, "{") for name in _EXTRA_TEXT_MACROS if name not in ("textcolor", "href")]
        + [macrospec.MacroSpec("textcolor", "{{"), macrospec.MacroSpec("href", "{{")],
    )
    text_db = latex2text.get_default_latex_context_db()
    text_db.add_context_category(
        "readlist",
        prepend=True,
        macros=[
            latex2text.MacroTextSpec(name, simplify_repl="%(1)s")
            for name in _EXTRA_TEXT_MACROS
            if name not in ("textcolor", "href")
        ]
        + [
            latex2text.MacroTextSpec("textcolor", simplify_repl="%(2)s"),
            latex2text.MacroTextSpec("href", simplify_repl="%(2)s"),
        ],
    )
    converter = latex2text.LatexNodes2Text(latex_context=text_db, math_mode="text", strict_latex_spaces=False)
    return converter, walker_db, latexwalker


# pylatexenc writes the lunate epsilon for \epsilon; readers expect the ordinary letter.
_AFTER_LATEX = str.maketrans({"ϵ": "ε", "\u00a0": " "})


@lru_cache(maxsize=4096)  # the same formula comes back within an abstract and across a list ($\epsilon$)
def _latex_span_to_text(span: str) -> str:
    converter, walker_db, latexwalker = _converter()
    if "%" in span:
        span = _BARE_PERCENT.sub(r"\1\\%", span)
    try:
        walker = latexwalker.LatexWalker(span, latex_context=walker_db, tolerant_parsing=True)
        nodes, _, _ = walker.get_latex_nodes()
        out = converter.nodelist_to_text(nodes)
    except Exception:  # pylatexenc raises a variety of errors on odd input; keep the text as written
        return span
    if "%s" in out or "%(" in out:  # a macro missing its arguments failed its substitution
        return span
    return out.translate(_AFTER_LATEX)


_BIBTEX_BRACES = {r"\textbraceleft{}": r"\{", r"\textbraceright{}": r"\}"}
_FIELD_LATEX = re.compile(r"[\\{}$~%]|--")


def field_to_text(value: str) -> str:
    """A BibTeX field (a title, a name, a venue) as one line of Unicode: all of it is LaTeX, so accents
    (`{\\"o}`), escapes (`\\&`), protective braces (`{BERT}`), dashes and math are converted; a bare `%` stays."""
    if not value.isprintable() or "  " in value or value[:1].isspace() or value[-1:].isspace():
        value = normalize_ws(strip_control(value))
    if not _FIELD_LATEX.search(value):
        return value
    for written, meant in _BIBTEX_BRACES.items():  # as readlist's BibTeX export writes them
        value = value.replace(written, meant)
    converter, walker_db, latexwalker = _converter()
    try:
        walker = latexwalker.LatexWalker(_BARE_PERCENT.sub(r"\1\\%", value), latex_context=walker_db,
                                         tolerant_parsing=True)  # fmt: skip
        text = converter.nodelist_to_text(walker.get_latex_nodes()[0])
    except Exception:  # pylatexenc raises a variety of errors on odd input; show it as an abstract would be
        return to_plain(value)
    if "%s" in text or "%(" in text:  # a macro missing its arguments failed its substitution
        return to_plain(value)
    return normalize_ws(text.translate(_AFTER_LATEX))


def unwrap_word_braces(text: str) -> str:
    # A match holds no space and reads nothing past one (a space is neither a word character nor a backslash), so
    # only the words holding a brace are scanned: the pattern tried at every place of an abstract was its slowest step.
    words = text.split(" ")
    for n, word in enumerate(words):
        if "{" in word:
            words[n] = _WORD_BRACES.sub(_unwrapped, word)
    return " ".join(words)


def _unwrapped(match: re.Match[str]) -> str:
    return (match.group(1) or "") + (match.group(2) or match.group(3))


def _is_dollar_amount(match: re.Match[str], text: str) -> bool:
    """Does this `$...$` span start with a dollar amount rather than math? It opens with a digit and either
    ends where another amount starts ("($0.08) ... average ($4.2)") or holds words ("$5 and $")."""
    span = match.group(0)
    body = span[1:-1]
    if span[0] != "$" or not (body[:1].isdigit() or (body[:1] == " " and body[1:2].isdigit())):  # "$0.08", "$ 20"
        return False
    if text[match.end() : match.end() + 1].isdigit():
        return True
    if body.count("(") != body.count(")") or body.count("[") != body.count("]"):  # "$0.08 ($\approx$ 8 cents)"
        return True
    return _PROSE_WORD.search(span, 1, len(span) - 1) is not None


def latex_to_text(text: str) -> str:
    """Turn the LaTeX bits of running text into Unicode; leave everything else as written."""
    if "\\" not in text and "$" not in text:
        return text
    parts: list[str] = []
    done = start = 0
    while (match := _LATEX_SPAN.search(text, start)) is not None:
        if _is_dollar_amount(match, text):
            start = match.start() + 1  # a dollar sign, as written; a later `$` may still open math
            continue
        parts += (text[done : match.start()], _latex_span_to_text(match.group(0)))
        done = start = match.end()
    parts.append(text[done:])
    return "".join(parts)


def strip_markdown(text: str) -> str:
    if "*" in text or "__" in text:  # what emphasis needs ("_" alone is a subscript's or a name's)
        text = _MD_EMPH.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(3), text)
    if "`" in text:
        text = _MD_CODE.sub(r"\1", text)
    return text


def repair_hyphens(text: str) -> str:
    """Join the words a line break split ("wit- nessed"). The pattern is tried only where a "- " is, from the start of
    the letters before it (a match starts there or nowhere): tried at every place of an abstract it was slow."""
    parts: list[str] = []
    done = scanned = 0  # the text before `done` is in `parts`; a match starts at `scanned` or after it
    at = text.find("- ")
    while at >= 0:
        start = at
        while start > scanned and text[start - 1] in _ASCII_LETTERS:
            start -= 1
        match = _BREAK_HYPHEN.match(text, start) if start < at else None
        if match is None:
            at = text.find("- ", at + 1)
            continue
        if match.group(2) not in _HYPHEN_KEEP:
            parts += (text[done:start], match.group(1), match.group(2))
            done = match.end()
        scanned = match.end()
        at = text.find("- ", scanned)
    return "".join(parts) + text[done:] if parts else text


def to_plain(text: str) -> str:
    """The display and search form of an abstract: one line, Unicode, no markup noise."""
    text = start = normalize_ws(strip_control(text))
    urls = find_urls(text)
    # Keep links out of the LaTeX and Markdown passes (underscores and tildes are common in them); a link that
    # starts another (https://x.org/a, https://x.org/a/b\d) goes after it, which would leave the rest exposed.
    for n, url in sorted(enumerate(urls), key=lambda found: -len(found[1])):
        text = text.replace(url, f"\x00{n}\x00")
    if "~" in text:  # LaTeX's tie: "Models~(LLMs)", "work~\cite{x}" (links are set aside above)
        text = _TIE.sub(" ", text)
    text = strip_markdown(latex_to_text(text))
    if "{" in text:
        text = unwrap_word_braces(text)
    text = repair_hyphens(text)
    for n, url in enumerate(urls):
        text = text.replace(f"\x00{n}\x00", url)
    # What no step changed is normalised already (most abstracts: a third of the time `list --json` took for them)
    return text if text == start else normalize_ws(text)


def fold(text: str) -> str:
    """Case- and accent-insensitive form for matching."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def hashtags(tags) -> str:
    """Tags as shown everywhere: '#rl #theory', control characters removed."""
    return " ".join("#" + strip_control(tag) for tag in tags)
