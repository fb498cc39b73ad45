"""Deriving a one-line title for an abstract that has none.

A title leads with the paper's own name when the abstract coins one ("we propose X, a ...",
"Expansion (X)", "called X"), followed by its expansion or gist; otherwise it is the paper's
core claim (the object of "we propose/study/show ..."), never just a cut-off first sentence.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from . import title_rules as rules

MAX_TITLE = 90
CLAUSE_LIMIT = 260  # a gist longer than this is cut anyway
SCAN_LIMIT = 5000  # characters of the abstract looked at; names and claims come early
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SENTENCE_END = re.compile(r"[.!?](?:\s+(?=[A-Z\"“(])|$)")
_ODD_SPACE = re.compile(r"[\x00-\x1f\x7f-\x9f\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]")
_SPACES = re.compile(r"\s+")
_NOT_A_NAME = frozenset({"In", "We", "The", "This", "Our", "A", "An", "To", "For", "It", "Here", "These", "That"})


@dataclass(frozen=True)
class Name:
    name: str
    expansion: str
    end: int  # where the text after the name (and its expansion) starts
    descriptor: str = ""  # "a framework" in "we propose a novel framework, X, ..."


@dataclass(frozen=True)
class Claim:
    start: int
    end: int
    verb: str


def cut(text: str, limit: int = MAX_TITLE) -> str:
    """Cut at a word boundary so the result is at most `limit` characters (ellipsis included)."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if " " in head[limit // 3 :]:
        head = head[: head.rindex(" ")]
    return head.rstrip(" ,;:-–—(") + "…"


def first_sentence(plain: str) -> str:
    return _SENTENCE.split(plain.strip(), maxsplit=1)[0].rstrip(".")


def _sentence_end(text: str, start: int) -> int:
    match = _SENTENCE_END.search(text, start)
    return match.start() if match else len(text)


def _clause(text: str) -> str:
    """The first clause of `text`, without parentheticals and promotional adjectives."""
    text = text[:CLAUSE_LIMIT]
    match = rules.CLAUSE_END.search(text)
    if match and match.start() > 12:
        text = text[: match.start()]
    if "(" in text:
        text = rules.PAREN.sub("", text)
    text = rules.fix_articles(rules.FLUFF.sub("", text))
    return text.strip(" ,;:.-–—\"”'(")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _claims(text: str, low: str) -> list[Claim]:
    starts = {0} if low.startswith(("we ", "this ", "here")) else set()
    for word in rules.SUBJECT_STARTS:
        at = low.find(word)
        while at >= 0:
            if word == " and " and not low.startswith(rules.AND_VERBS, at + 5):
                pass
            elif word[0] == " ":
                starts.add(at + 1)
            elif at == 0 or low[at - 1] == " ":
                starts.add(at)
            at = low.find(word, at + 1)
    claims = []
    for start in sorted(starts):
        match = rules.CLAIM_AT.match(low, start)
        if match and not (low.startswith("by", start) and match.group(2) != "ing"):
            claims.append(Claim(start, match.end(), match.group(1)))
    return claims


def _name_at(text: str, start: int, descriptor: str = "") -> Name | None:
    """A name at `start`: a coined token, or a Title Case phrase set off by ',', '(' or ':'."""
    match = rules.NAME_PHRASE.match(text, start, start + 120)
    if not match:
        return None
    words = match.group(0).split(" ")
    while words and not words[-1][:1].isupper() and not words[-1][:1].isdigit():
        words.pop()
    if not words or words[0] in _NOT_A_NAME:
        return None
    phrase = " ".join(words)
    end = start + len(phrase)
    after = text[end : end + 2]
    if len(words) == 1:
        if phrase in rules.COMMON or not (rules.is_coined(phrase) or after[:1] in ",(:"):
            return None
    elif not (after[:1] in ",:" or after in (" (", " -", " —")):
        return None
    paren = rules.ACRONYM_PAREN.match(text, end)
    if paren:
        inner = paren.group(1)
        if " " in phrase and rules.initials_match(inner, phrase):
            return Name(inner, phrase, paren.end(), descriptor)
    if after == " (":
        close = text.find(")", end, end + 160)
        inner = text[end + 2 : close] if close > 0 else ""
        if " " in inner and rules.initials_match(phrase, inner):
            return Name(phrase, inner, close + 1, descriptor)
    return Name(phrase, "", end, descriptor)


_DESCRIPTOR = re.compile(
    r"((?:an?|our|one|the) (?:[\w\-]+ ){0,5}?[\w\-]+),? (?:(?:called|named|dubbed|termed) )?[\"“']?"
)


def _named_after_claim(text: str, start: int) -> Name | None:
    """The name right after a contribution verb, after 'a novel framework,', or 'words (ACRONYM)'."""
    name = _name_at(text, start)
    if name:
        return name
    match = _DESCRIPTOR.match(text, start, start + 100)
    if match and rules.descriptor_before(match.group(0).lower()):
        name = _name_at(text, match.end(), match.group(1))
        if name:
            return name
    stop = min(_sentence_end(text, start), start + 140)
    paren = rules.ACRONYM_PAREN.search(text, start, stop)
    if paren and rules.is_coined(paren.group(1)):
        expansion = rules.expansion_before(text, paren.start(), paren.group(1))
        if expansion and text.find(expansion, start, paren.start()) <= start + 40:
            return Name(paren.group(1), expansion, paren.end())
    return None


def _coined_tokens(text: str) -> Counter[str]:
    counts = Counter(rules.COINED.findall(text))
    for token in [t for t in counts if t[-1] == "s" and t[-2:-1].isupper()]:
        counts[token[:-1]] += counts.pop(token)
    return counts


def _first_at(text: str, token: str) -> int:
    """Where `token` first occurs as a whole word (or -1)."""
    at = text.find(token)
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "-+"):
        at = text.find(token, at + 1)
    return at


def _best_name(text: str, low: str, claims: list[Claim]) -> Name | None:
    counts = _coined_tokens(text)
    scored: list[tuple[int, int, Name]] = []

    def add(name: Name | None, base: int, at: int) -> None:
        if name is not None:
            count = counts.get(name.name) or text.count(name.name)
            scored.append((base + min(count, 4), -at, name))

    for claim in claims:
        if rules.MAKE.match(claim.verb):
            add(_named_after_claim(text, claim.end), 3, claim.end)
    naming = [(at, len(word)) for word in rules.NAMING_WORDS for at in _word_starts(low, word)]
    naming += [(c.start, 8) for c in claims if c.verb[:1] == "w" and low.startswith(rules.WE_NAMING, c.start + 3)]
    for at, length in naming:
        sentence = low.rfind(". ", 0, at)
        own = any(sentence < c.start <= at for c in claims)
        add(_name_at(text, at + length), 3 if own else 1, at)
    background_end = claims[0].start if claims else _sentence_end(text, 0)
    for token, count in counts.items():
        if not rules.is_coined(token):
            continue
        at = _first_at(text, token)
        if at < 0:
            continue
        before = low[max(0, at - 60) : at]
        base = 2 if rules.descriptor_before(before) else 0
        if base == 0 and (count < 2 or at < background_end):
            continue
        expansion, end = "", at + len(token)
        if before.endswith("("):
            expansion = rules.expansion_before(text, at - 1, token)
            end = text.find(")", at) + 1 or end
            if expansion and expansion.islower():
                base -= 2
        add(Name(token, expansion if expansion[:1].isupper() else "", end, ""), base, at)
    if not scored:
        return None
    score, _, name = max(scored, key=lambda item: item[:2])
    return name if score >= 2 else None


def _word_starts(low: str, word: str) -> list[int]:
    found = []
    at = low.find(word)
    while at >= 0:
        if at == 0 or low[at - 1] == " ":
            found.append(at)
        at = low.find(word, at + len(word))
    return found


def _gist(text: str, name: Name) -> tuple[str, bool]:
    """What follows the name in its sentence: ('a framework for ...', True) for an appositive."""
    rest = text[name.end : _sentence_end(text, name.end)]
    appositive = rules.APPOSITIVE.match(rest)
    if appositive:
        return _clause(rest[appositive.start(1) :]), True
    purpose = rules.PURPOSE.match(rest)
    if purpose:
        clause = _clause(rest[purpose.start(1) :])
        if purpose.group(1).strip().lower() in ("that", "which"):
            if name.descriptor and not name.expansion:
                return _clause(f"{name.descriptor} {clause}"), True
            clause = clause.split(" ", 1)[-1]
        elif name.descriptor and not name.expansion:
            return _clause(f"{name.descriptor} {clause}"), True
        return clause, False
    if name.descriptor and not name.expansion:
        return _clause(name.descriptor), True
    following = text[name.end : name.end + 600]
    for link in (" is a ", " is an ", ", a ", ", an "):
        again = following.find(name.name + link)
        if again >= 0:
            rest = following[again + len(name.name) + len(link) - 2 :].lstrip(" ,")
            return _clause(rest[: _sentence_end(rest, 0)]), True
    return "", False


def _with_name(text: str, name: Name, fallback: Callable[[], str]) -> str:
    gist, appositive = _gist(text, name)
    if appositive and gist.lower().startswith(("the ", "one ", "our ")):
        gist = gist.split(" ", 1)[1]
    if name.expansion:
        head = f"{name.name}: {name.expansion}"
        if gist:
            return f"{head}, {gist}" if appositive else f"{head} {gist}"
        return head
    if not gist:
        gist = fallback()
        if name.name.lower() in gist.lower():
            gist = ""
    return f"{name.name}: {gist}" if gist else name.name


def _claim_title(text: str, claim: Claim) -> str:
    rest = text[claim.end : _sentence_end(text, claim.end)]
    if claim.verb in rules.THAT_VERBS or rest.lower().startswith(("that ", "how ", "whether ")):
        rest = rules.THAT_FILLER.sub("", rest)
    clause = _clause(rest)
    return _capital(clause) if len(clause.split()) >= 3 else ""


def _scene_title(text: str) -> str:
    sentence = text[: _sentence_end(text, 0)]
    clause = _clause(rules.SCENE.sub("", sentence))
    if len(clause.split()) < 3:
        clause = sentence.strip(" .")
    return _capital(clause)


def _clean(plain: str) -> str:
    text = plain[: SCAN_LIMIT + 200]
    if _ODD_SPACE.search(text) or "  " in text:
        text = _SPACES.sub(" ", _ODD_SPACE.sub(" ", text))
    return text.strip()[:SCAN_LIMIT]


def _lower(text: str) -> str:
    low = text.lower()
    if len(low) != len(text):  # a few characters lower-case to two; keep offsets aligned
        low = "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)
    return low


def derive_title(plain: str) -> str:
    """A title of at most MAX_TITLE characters: the paper's name and gist, or its core claim."""
    text = _clean(plain)
    if not text:
        return ""
    low = _lower(text)
    claims = _claims(text, low)

    def claim_title() -> str:
        for claim in claims:
            title = _claim_title(text, claim)
            if title:
                return title
        return ""

    name = _best_name(text, low, claims)
    if name:
        return cut(_with_name(text, name, claim_title))
    return cut(claim_title() or _scene_title(text))
