"""The paper's topic: the term the abstract defines and then uses most ("large language models (LLMs)").

A title without a name of the paper's own leads with it, as titles often do ("Topic: what was done"),
unless the claim already says it.
"""

from __future__ import annotations

import re

from . import title_acronyms as acronyms

MIN_USES = 2  # the definition and at least one use after it
MAX_WORDS = 5
MAX_CHARS = 36  # a longer topic leaves too little of the claim within the title
DEFINITIONS_WITHIN = 1500  # characters: the paper's terms are defined early
_DEFINED = re.compile(r"\(([A-Z][A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*?)s?\)")


def key_term(text: str) -> tuple[str, str]:
    """(expansion, short form) of the most used defined abbreviation, or ('', '')."""
    best, best_uses = ("", ""), MIN_USES - 1
    at = text.find(" (", 0, DEFINITIONS_WITHIN)
    while at >= 0:
        match = _DEFINED.match(text, at + 1)
        at = text.find(" (", at + 2, DEFINITIONS_WITHIN)
        if not match:
            continue
        short = match.group(1)
        if short in acronyms.COMMON or text.count(short) <= best_uses:
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
    return long[:1].upper() + long[1:] + ": ", claim
