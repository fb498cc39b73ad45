"""Reading a service's answer safely: XML through the standard library's expat (no DOCTYPE, so no entities),
JSON through json; an HTML page, an empty, cut-short or malformed answer becomes one SourceError line."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any
from xml.etree.ElementTree import Element, TreeBuilder
from xml.parsers import expat

from ..text.normalize import strip_control, to_plain
from .client import Reply, SourceError

_CUT_SHORT = {
    expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS],
    expat.errors.codes[expat.errors.XML_ERROR_UNCLOSED_TOKEN],
    expat.errors.codes[expat.errors.XML_ERROR_UNCLOSED_CDATA_SECTION],
    expat.errors.codes[expat.errors.XML_ERROR_PARTIAL_CHAR],
}


class _DoctypeRefused(Exception):
    pass


def _check_not_page(reply: Reply, expected: str) -> None:
    if not reply.body.strip():
        raise SourceError(reply.host, f"an empty answer (HTTP {reply.status}), not {expected}")
    head = reply.body.lstrip()[:64].lower()
    if "html" in reply.content_type.lower() or head.startswith((b"<!doctype html", b"<html")):
        raise SourceError(reply.host, f"an HTML page (HTTP {reply.status}), not {expected}")


def xml_root(reply: Reply, expected: str = "an Atom feed") -> Element:
    """The answer's root element, tags as {namespace}name; a DOCTYPE is refused, as are malformed documents."""
    _check_not_page(reply, expected)
    builder = TreeBuilder()
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def refuse(*_args) -> None:
        raise _DoctypeRefused

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.StartElementHandler = lambda name, attrs: builder.start(
        _clark(name), {_clark(key): value for key, value in attrs.items()}
    )
    parser.EndElementHandler = lambda name: builder.end(_clark(name))
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(reply.body, True)
        return builder.close()
    except _DoctypeRefused:
        raise SourceError(reply.host, f"XML with a DOCTYPE, refused ({expected} has none)") from None
    except expat.ExpatError as error:
        if error.code in _CUT_SHORT:
            raise SourceError(
                reply.host, f"the XML answer is cut short ({expat.errors.messages[error.code]})"
            ) from None
        raise SourceError(reply.host, f"malformed XML ({error})") from None
    except (AssertionError, IndexError, ValueError) as error:  # TreeBuilder on an unbalanced document
        raise SourceError(reply.host, f"malformed XML ({error or type(error).__name__})") from None


def _clark(name: str) -> str:
    """expat's 'namespace local' as ElementTree's '{namespace}local'."""
    namespace, _, local = name.rpartition(" ")
    return f"{{{namespace}}}{local}" if namespace else local


def json_value(reply: Reply, expected: str = "JSON") -> Any:
    """The answer's JSON; SourceError for an HTML page, a cut-short or malformed document."""
    _check_not_page(reply, expected)
    try:
        return json.loads(reply.body)
    except json.JSONDecodeError as error:
        if error.pos >= len(error.doc.rstrip()):
            raise SourceError(reply.host, "the JSON answer is cut short") from None
        raise SourceError(
            reply.host, f"malformed JSON ({error.msg} at line {error.lineno} column {error.colno})"
        ) from None
    except (UnicodeDecodeError, RecursionError) as error:
        raise SourceError(reply.host, f"malformed JSON ({type(error).__name__})") from None


def need(value: Any, kind: type | tuple[type, ...], host: str, what: str) -> Any:
    """`value` when it is of `kind`; otherwise the answer is not in the documented shape: SourceError."""
    if not isinstance(value, kind):
        raise SourceError(host, f"an answer in an unexpected shape ({what})")
    return value


# TeX's accents on one letter, as arXiv metadata writes names ("G\\"odel", "{\\'E}mile"): the letter and a
# combining mark. Running text keeps them for the LaTeX converter; in a name there is nothing else they can be.
_TEX_ACCENT = re.compile(r"\{?\\([\"'`^~=.])\{?([A-Za-z])\}?\}?")
_COMBINING = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304", ".": "\u0307"}


def text_of(value: Any) -> str | None:
    """A text field of an answer as readlist shows it (LaTeX as Unicode, one line, no control characters);
    None for anything but a non-blank string."""
    if not isinstance(value, str):
        return None
    if "\\" in value:
        value = unicodedata.normalize("NFC", _TEX_ACCENT.sub(lambda m: m[2] + _COMBINING[m[1]], value))
    return to_plain(value) or None


def year_of(value: Any) -> int | None:
    """A year given as a number or as text ("2023"); None otherwise."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 9999:
        return value
    return None


def ident_of(value: Any) -> str | None:
    """An identifier (DOI, key, category) as given, control characters and spaces removed; None if blank."""
    if not isinstance(value, str):
        return None
    return "".join(strip_control(value).split()) or None


def url_of(value: Any) -> str | None:
    """An http(s) link as given, or None: anything else (javascript:, text, control characters) is no link."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    if not value.lower().startswith(("https://", "http://")) or strip_control(value) != value or " " in value:
        return None
    return value
