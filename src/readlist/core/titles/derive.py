"""Deriving a one-line title for an abstract that has none.

A title leads with the paper's own name when the abstract coins one ("we propose X, a ...",
"Expansion (X)", "called X"), followed by its expansion or gist; otherwise it is the paper's
core claim (the object of "we propose/study/show ..."), never just a cut-off first sentence.
The parts: `title_names` finds the name, `title_gist` what follows it, `title_claims` the claim,
`title_clauses` cuts sentences into clauses, `title_topic` the abstract's key term (a lead for a claim,
a setting for a bare name); the word lists and patterns are in `title_rules` and `title_acronyms`.
"""

from __future__ import annotations

import re

from ..text.tokens import CJK_CHAR
from .claims import claim_title, find_claims, scene_title
from .compose import compose, drop_article
from .gist import spell_out, with_name
from .names import best_names
from .rules import fix_articles
from .topic import with_setting, with_topic

MAX_TITLE = 90
SHOWN = 100  # characters of a gist that may end up in the title (composing shortens, spelling out lengthens)
SCAN_LIMIT = 5000  # characters of the abstract looked at; names and claims come early
_ODD_SPACE = re.compile(r"[\x00-\x1f\x7f-\x9f\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]")
_SPACES = re.compile(r"\s+")
_NAMING_WORD = re.compile(r" (?:called|named|dubbed|termed) ")
CJK_TITLE = 45  # characters: each takes two cells on screen
_CJK_SENTENCE_END = re.compile("[。！？]")


def cut(text: str, limit: int = MAX_TITLE) -> str:
    """Cut at a word boundary so the result is at most `limit` characters (ellipsis included)."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if " " in head[limit // 3 :]:
        head = head[: head.rindex(" ")]
    return head.rstrip(" ,;:-–—(") + "…"


def _tidy(title: str) -> str:
    """One line, no control characters (the abstract is `Paper.plain`, already tidy, but may not be)."""
    if _ODD_SPACE.search(title) or "  " in title:
        title = _SPACES.sub(" ", _ODD_SPACE.sub(" ", title))
    return title


def _lower(text: str) -> str:
    low = text.lower()
    if len(low) != len(text):  # a few characters lower-case to two; keep offsets aligned
        low = "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)
    return low


def _cjk_title(text: str) -> str:
    """An abstract in Chinese or Japanese: its first sentence, as wide on screen as a Latin title at most."""
    end = _CJK_SENTENCE_END.search(text)
    sentence = _tidy(text[: end.start()] if end else text).strip()
    return sentence if len(sentence) <= CJK_TITLE else sentence[: CJK_TITLE - 1] + "…"


def derive_title(plain: str, limit: int = MAX_TITLE) -> str:
    """A title of at most `limit` characters: the paper's name and gist, or its core claim. A citation asks for a
    longer limit than the list's, so that its title is whole where the list's is cut."""
    text = plain[:SCAN_LIMIT].strip()
    if not text:
        return ""
    if len(CJK_CHAR.findall(text, 0, 200)) * 2 > len(text[:200]):
        return _cjk_title(text)
    low = _lower(text)
    claims, naming = find_claims(low)

    def core_claim() -> str:
        return claim_title(text, claims)

    name, second = best_names(text, low, claims, naming)
    if name:
        head, gist = with_name(text, name, lambda: core_claim() or scene_title(text))
        if name.name in gist and _NAMING_WORD.search(gist):  # "X: an optimal technique ..., called X"
            gist = re.sub(rf",? (?:called|named|dubbed|termed) {re.escape(name.name)}(?=[\s,.;:)]|$)", "", gist)
        if second and not name.expansion and second.name not in head + gist:
            head = f"{name.name} and {second.name}" + head[len(name.name) :]  # "a benchmark and a method"
    else:
        head, gist = "", core_claim() or scene_title(text)
    if gist:
        space = gist.find(" ", SHOWN) if len(gist) > SHOWN else -1
        rest = gist[space:] if space > 0 else ""  # cut off anyway: not worth spelling out or composing
        shown = gist[: len(gist) - len(rest)]
        spelled = spell_out(text, shown)
        if spelled != shown:
            spelled = fix_articles(spelled)  # "an RL" spelled out is "a reinforcement learning ..."
        gist = compose(spelled) + rest
        if head:
            gist = drop_article(gist)
    if not head and low.find("position paper", 0, 400) >= 0:
        head = "Position: "  # the convention for position papers
    elif not head and gist:
        head, gist = with_topic(text, gist)
    title = head + gist
    if name and not name.expansion:  # "X: Benchmark" says what X is, not what for; an expansion says enough
        title = with_setting(text, title, gist, MAX_TITLE)  # what the list shows, whatever the limit
    return cut(_tidy(title), limit)
