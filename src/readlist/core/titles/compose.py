"""Composing a title from a gist: the same content words in fewer characters, the way titles are written.

A title is a noun phrase, not a sentence: "a framework that reduces X by ..." reads as "Reducing X by ...",
"a benchmark that evaluates X" as "benchmark evaluating X", "designed to solve X" as "to solve X".
Articles, manner adverbs and relative-clause glue cost characters that a reader (and a search) never needs;
dropping them leaves room in the title for the task and the domain, which would otherwise be cut off.
"""

from __future__ import annotations

import re

from .clauses import capital

# Nouns that only say "this is a contribution": dropped before the verb that says what it does.
GENERIC_NOUNS = (
    "framework|approach|method|methodology|technique|paradigm|strategy|mechanism|scheme|solution|pipeline|"
    "system|algorithm|model|procedure|recipe|module|tool|toolkit"
)
# Verbs that glue a relative clause: "that can", "which is able to".
_MODAL = r"((?:can|could|will|would|may|is able to|are able to|allows? to|helps? to) )?"
_ADVERB = (
    r"(?:effectively|efficiently|explicitly|implicitly|dynamically|adaptively|automatically|systematically|"
    r"specifically|seamlessly|simultaneously|significantly|substantially|consistently|accurately|successfully|"
    r"directly|naturally|flexibly|progressively|iteratively|robustly|reliably|greatly|largely|"
    r"notably) "
)
# "a framework that reduces", "which leverages", "that can provide": the verb is turned into its -ing form.
_THAT = rf",? (?:that|which) {_MODAL}(?:(?:[a-z]+ly|also|further|then|first) )?([a-z]{{3,}})\b"
RELATIVE = re.compile(_THAT)
# "a framework that X" at the start of the gist: the noun goes, the verb says what it is.
START_GENERIC = re.compile(rf"^(,? ?)(?:an?|the|our) (?:{GENERIC_NOUNS}){_THAT}")
# Purpose glue: "designed to solve" -> "to solve", "capable of generating" -> "generating".
PURPOSE_GLUE = re.compile(
    r"\b(?:(?:specifically |especially |explicitly )?(?:designed|developed|tailored|built|intended|proposed|"
    r"aimed|aiming|crafted|engineered) (?=to |for )|in order (?=to )|so as (?=to )|"
    r"(?:that is |which is )?(?:capable of|able to) )"
)
# After an expansion: "Sync-Point Drop, a technique for X" (or "a lightweight training-free technique for X")
# -> "Sync-Point Drop for X"; "... to reduce X" or "to further reduce X" -> "... for reducing X".
AFTER_EXPANSION = re.compile(
    rf"^(?:, (?:an?|the) (?:[\w\-]+ ){{0,3}}(?:{GENERIC_NOUNS}|{GENERIC_NOUNS.replace('|', 's|')}s))? (for|to) "
    r"(?:(?:further|better|also|jointly|both) )?([a-z]{3,}) "
)
ADVERBS = re.compile(r"(?<= )" + _ADVERB[:-1] + r"\b,? ")
# "X, the first benchmark for Y": after a name, "the first" is always a claim.
FIRST_AFTER_NAME = re.compile(r"^(?:the )?first(?:-ever| ever)? (?!(?:to|of|time)\b)", re.IGNORECASE)
LEADING_ARTICLE = re.compile(r"^(?:an?|the|our) (?!(?:first|only|same|one)\b)", re.IGNORECASE)
_NOT_VERBS = frozenset({"is", "are", "was", "were", "has", "have", "does", "do", "be", "can", "not", "the", "also"})
_DOUBLED = frozenset(
    "map bootstrap drop stop plan scan run set get put cut split ship step wrap tag flag distil control compel".split()
)


def ing_form(verb: str) -> str:
    """'reduces' -> 'reducing', 'applies' -> 'applying', 'provide' -> 'providing', 'matches' -> 'matching'."""
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "ying"
    if verb.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return verb[:-2] + "ing"
    stem = verb[:-1] if verb.endswith("s") and not verb.endswith(("ss", "us", "is")) else verb
    if stem.endswith("e") and not stem.endswith(("ee", "ye", "oe")):
        stem = stem[:-1]
    elif stem in _DOUBLED:
        stem += stem[-1]
    return stem + "ing"


def _converts(verb: str, modal: bool = False) -> bool:
    """Is this the verb of a relative clause ('that reduces', 'that can provide'), not 'that the ...'?"""
    return verb not in _NOT_VERBS and not verb.endswith(("ed", "ing", "ly")) and (verb[-1] == "s" or modal)


def _relative(match: re.Match[str]) -> str:
    verb = match.group(2)
    return " " + ing_form(verb) if _converts(verb, bool(match.group(1))) else match.group(0)


def _after_expansion(match: re.Match[str]) -> str:
    word, verb = match.group(1), match.group(2)
    if word == "to" and verb not in _NOT_VERBS and not verb.endswith(("ed", "ing", "ly", "s")):
        return f" for {ing_form(verb)} "
    return f" {word} {verb} "


def compose(gist: str) -> str:
    """The gist without articles and glue, relative clauses turned into -ing phrases."""
    if gist[:1] in ", ":
        gist = AFTER_EXPANSION.sub(_after_expansion, gist, 1)
    if " that " in gist or " which " in gist:
        start = START_GENERIC.match(gist)
        if start and _converts(start.group(3), bool(start.group(2))):  # "a framework that refines X" -> "refining X"
            gist = start.group(1).rstrip() + " " + ing_form(start.group(3)) + gist[start.end() :]
            gist = gist if start.group(1) else gist.lstrip()
        gist = RELATIVE.sub(_relative, gist)
    if (
        "ed to " in gist
        or "ed for " in gist
        or "able " in gist
        or "in order" in gist
        or "so as" in gist
        or "aiming" in gist
    ):
        gist = PURPOSE_GLUE.sub("", gist)
    if "ly " in gist:
        gist = ADVERBS.sub("", gist)
    return gist


def drop_article(gist: str) -> str:
    """'a benchmark for X' after a name: 'Benchmark for X', as titles are written."""
    match = LEADING_ARTICLE.match(gist) or FIRST_AFTER_NAME.match(gist)
    if match:
        gist = gist[match.end() :]
    return capital(gist)
