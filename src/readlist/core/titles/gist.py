"""What follows the paper's name (its gist), joined to the name; abbreviations spelled out from the abstract."""

from __future__ import annotations

import re
from collections.abc import Callable

from . import acronyms as acronyms
from . import rules as rules
from .clauses import first_clause, sentence_end
from .names import Name

_NAME_GOES_ON = re.compile(r" [A-Z]")


def find_gist(text: str, name: Name) -> tuple[str, bool]:
    """What follows the name in its sentence: ('a framework for ...', True) for an appositive."""
    rest = text[name.end : sentence_end(text, name.end)]
    if rest.startswith(" (") and ")" in rest:  # "X (X-Short), a ..."
        rest = rest[rest.index(")") + 1 :]
    appositive = rules.APPOSITIVE.match(rest)
    if appositive:
        return first_clause(rest[appositive.start(1) :]), True
    purpose = rules.PURPOSE.match(rest)
    if purpose:
        clause = first_clause(rest[purpose.start(1) :])
        if purpose.group(1).strip().lower() in ("that", "which"):
            if name.descriptor and not name.expansion:
                return first_clause(f"{name.descriptor} {clause}"), True
            clause = clause.split(" ", 1)[-1]
        elif name.descriptor and not name.expansion:
            return first_clause(f"{name.descriptor} {clause}"), True
        return clause, False
    if name.descriptor and not name.expansion:
        return first_clause(name.descriptor), True
    noun = rest.split(" ", 2)[1:2]
    if noun and noun[0].rstrip(",:") in rules.DESCRIPTOR_NOUNS:  # "a Trans-XFed architecture that ..."
        return rules.fix_articles("a " + first_clause(rest.strip())), True
    following = text[name.end : name.end + 600]
    for link in (" is a ", " is an ", ", a ", ", an "):
        again = following.find(name.name + link)
        if again >= 0:
            rest = following[again + len(name.name) + len(link) - 2 :].lstrip(" ,")
            return first_clause(rest[: sentence_end(rest, 0)]), True
    verb_phrase = rules.VERB_PHRASE.match(rest)
    if verb_phrase:  # "Our model, TabFlex, efficiently handles ..." -> "efficiently handles ..."
        return first_clause(rest[verb_phrase.end() :]), False
    return "", False


def with_name(text: str, name: Name, fallback: Callable[[], str]) -> tuple[str, str]:
    """The title's head (name and expansion) and its gist, joined as they should be."""
    gist, appositive = find_gist(text, name)
    if appositive and gist.lower().startswith(("the ", "one ", "our ")):
        gist = gist.split(" ", 1)[1]
    if name.expansion:
        head = f"{name.name}: {name.expansion}"
        if gist:
            return head, f", {gist}" if appositive else f" {gist}"
        return head, ""
    if not gist:  # a bare name says little: add the paper's claim
        gist = fallback()
        if gist.lower().startswith(name.name.lower()):
            gist = gist[len(name.name) :].lstrip(" ,:")
    return (f"{name.name}: ", gist) if gist else (name.name, "")


def spell_out(text: str, words: str) -> str:
    """Abbreviations the abstract defines ("large language models (LLMs)") spelled out, once each."""
    seen = set()
    for match in acronyms.ABBREVIATION.finditer(words):
        token = match.group(0)
        short = token[:-1] if token[-1] == "s" and token[-2].isupper() else token
        if short in seen or short in acronyms.KEEP_SHORT or _NAME_GOES_ON.match(words, match.end()):
            continue  # "OS Agents" is a name of its own
        seen.add(short)
        at = text.find(f" ({short}")
        if at < 0 or text[at + 2 + len(short) : at + 4 + len(short)] not in (")", "s)", ") ", "),", ").", "s)"):
            continue
        long = acronyms.expansion_before(text, at + 1, short)
        if not long or long.count(" ") > 5:
            continue
        plural_definition = text.startswith("s)", at + 2 + len(short))
        if short != token and not long.endswith("s"):
            long += "s"
        elif short == token and plural_definition and long.endswith("s"):
            long = long[:-1]  # "an LLM agent": "large language model", not "... models"
        if long[1:2].islower() and long[1:] == long[1:].lower():
            long = long[0].lower() + long[1:]  # capitalised only as the first word of a sentence
        words = words.replace(token, long, 1)
    return words
