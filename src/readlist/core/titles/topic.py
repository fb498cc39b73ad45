"""The paper's topic: the term the abstract defines and then uses most ("large language models (LLMs)").

A title without a name of the paper's own leads with it, as titles often do ("Topic: what was done"),
unless the claim already says it. A name whose gist only says what kind of thing it is ("X: Benchmark")
is followed by it, field terms included ("X: Benchmark for large language models").
"""

from __future__ import annotations

import re

from . import acronyms as acronyms
from .clauses import capital

MIN_USES = 2  # the definition and at least one use after it
MAX_WORDS = 5
MAX_CHARS = 36  # a longer topic leaves too little of the claim within the title
BARE_WORDS = 6  # a gist this short without a preposition names a kind of thing, not what it is for
DEFINITIONS_WITHIN = 1500  # characters: the paper's terms are defined early
TOO_BROAD = frozenset({"AI", "ML", "DL", "NLP", "CV", "GenAI", "AGI"})  # no setting for a method
# A gist that says more than a kind of thing: a preposition, a clause, a verb form, a list, a parenthesis.
_NOT_BARE = re.compile(
    r" (?:for|to|of|in|on|with|via|by|from|using|that|which|where|and|is|are|was|were|can|will)\b"
    r"|^(?:For|To|Towards?) |[,:;(]|^[A-Z]?[a-z]+ly "
    r"|^(?!(?:[Cc]halleng|[Ee]merg|[Ee]xist|[Ll]ead|[Pp]romis|[Dd]emand|[Ee]volv|[Pp]ioneer|[Ss]cal)ing\b)[A-Za-z]+ing "
)
PLURAL_NOUNS = ("model", "network", "agent", "system", "transformer", "machine", "graph")
_DEFINED = re.compile(r"\(([A-Z][A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*?)s?\)")


def key_term(text: str, field_ok: bool = False) -> tuple[str, str]:
    """(expansion, short form) of the most used defined abbreviation, or ('', ''); the field's own terms
    ("large language models (LLMs)") only when `field_ok`."""
    best, best_uses = ("", ""), MIN_USES - 1
    at = text.find(" (", 0, DEFINITIONS_WITHIN)
    while at >= 0:
        match = _DEFINED.match(text, at + 1)
        at = text.find(" (", at + 2, DEFINITIONS_WITHIN)
        if not match:
            continue
        short = match.group(1)
        if (short in acronyms.COMMON and (not field_ok or short in TOO_BROAD)) or text.count(short) <= best_uses:
            continue  # "large language models" is the field, not the topic; or used too little anyway
        uses = acronyms.uses(text, short) + acronyms.uses(text, short + "s")
        if uses <= best_uses:
            continue
        long = acronyms.expansion_before(text, match.start(), short)
        if " " in long and long.count(" ") < MAX_WORDS and len(long) <= MAX_CHARS and "," not in long:
            best, best_uses = (long, short), uses
    return best


def with_topic(text: str, claim: str) -> tuple[str, str]:
    """('Topic: ', claim) when the claim does not mention the paper's key term, else ('', claim)."""
    long, short = key_term(text)
    if not long:
        return "", claim
    lowered = claim.lower()
    if long.lower().rstrip("s") in lowered or short.lower() in lowered:
        return "", claim
    if claim.startswith(("The ", "A ", "An ")):
        claim = claim[:1].lower() + claim[1:]  # "Topic: the effect of ...", but "Topic: Large Language Models ..."
    return capital(long) + ": ", claim


def with_setting(text: str, title: str, gist: str, limit: int) -> str:
    """'DynamicMind: Tri-mode thinking system' says what it is but not what for: add the abstract's key term
    ('... for large language models') when the gist is a bare descriptor and the title has room."""
    if not gist or len(gist.split()) > BARE_WORDS or _NOT_BARE.search(gist):
        return title
    long, short = key_term(text, field_ok=True)
    lowered = title.lower()
    if not long or long.lower().rstrip("s") in lowered or re.search(rf"(?<![a-z]){re.escape(short.lower())}", lowered):
        return title  # already said ("LLM-driven" says LLMs; "world" does not say RL)
    if long.lower().endswith(PLURAL_NOUNS) or (not long.endswith("s") and acronyms.uses(text, short + "s")):
        long += "s"  # "(LLM)" defined: "for large language models"
    if long[1:] == long[1:].lower():
        long = long[0].lower() + long[1:]  # capitalised only as the first word of a sentence
    added = f"{title} for {long}"
    return added if len(added) <= limit else title
