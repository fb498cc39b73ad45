"""Deriving a one-line title for an abstract that has none.

A title leads with the paper's own name when the abstract coins one ("we propose X, a ...",
"Expansion (X)", "called X"), followed by its expansion or gist; otherwise it is the paper's
core claim (the object of "we propose/study/show ..."), never just a cut-off first sentence.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from . import title_rules as rules

MAX_TITLE = 90
# Name scores: a base for how the name is introduced, plus how often it is used (at most 4).
CLAIMED = 4  # "we propose X", "called X"
DESCRIBED = 3  # "a new benchmark, X"
REPOSITORY = 3  # "github.com/someone/X"
MAX_COUNT = 4
LOWER_PENALTY = 3  # defined as "lower-case words (X)": more often field vocabulary than a new name
MIN_SCORE = 2
MIN_CLAUSE = 40  # a clause boundary closer to the start than this is not taken
CLAUSE_LIMIT = 260  # a gist longer than this is cut anyway
SCAN_LIMIT = 5000  # characters of the abstract looked at; names and claims come early
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SENTENCE_END = re.compile(r"[.!?](?:\s+(?=[A-Z\"“(])|$)")
_ODD_SPACE = re.compile(r"[\x00-\x1f\x7f-\x9f\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]")
_SPACES = re.compile(r"\s+")
_VERSION = re.compile(r"v\d")
_NAME_GOES_ON = re.compile(r" [A-Z]")
_NOT_A_NAME = frozenset({"In", "We", "The", "This", "Our", "A", "An", "To", "For", "It", "Here", "These", "That"})


class Name(NamedTuple):
    name: str
    expansion: str
    end: int  # where the text after the name (and its expansion) starts
    descriptor: str = ""  # "a framework" in "we propose a novel framework, X, ..."


class Claim(NamedTuple):
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
    match = rules.CLAUSE_END.search(text, MIN_CLAUSE)
    if match:
        text = text[: match.start()]
    if "(" in text:
        text = rules.PAREN.sub("", text)
    lowered = text.lower()
    if any(hint in lowered for hint in rules.FLUFF_HINTS):
        text = rules.fix_articles(rules.FLUFF.sub("", text))
    return text.strip(" ,;:.-–—\"”'(")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _claims(low: str) -> tuple[list[Claim], list[tuple[int, int]]]:
    """Contribution claims ("we propose", "this paper studies", "... and presents"),
    and naming phrases ("we call it X", "a method called X") in the claims' sentences."""
    starts = [0] if low.startswith(("we ", "this ", "here")) else []
    naming: list[tuple[int, int]] = []
    at = low.find(" we ")
    while at >= 0:
        if low.startswith(rules.WE_NAMING, at + 4):
            phrase = next(p for p in rules.WE_NAMING if low.startswith(p, at + 4))
            naming.append((at, 4 + len(phrase)))
        else:
            starts.append(at + 1)
        at = low.find(" we ", at + 4)
    for word, follow in rules.SUBJECT_STARTS:
        at = low.find(word)
        while at >= 0:
            if low.startswith(follow, at + len(word)):
                starts.append(at + 1)
            at = low.find(word, at + len(word))
    claims = []
    for start in sorted(starts):
        match = rules.CLAIM_AT.match(low, start)
        if not match or match.group(1) not in rules.VERB_BASE:
            continue
        end = match.end()
        if low.startswith(rules.PARTICLES, end):
            end = low.index(" ", end) + 1
        claims.append(Claim(start, end, rules.VERB_BASE[match.group(1)]))
    for claim in claims:
        if claim.verb not in rules.MAKE_VERBS:
            continue
        stop = low.find(". ", claim.end)
        stop = stop if stop > 0 else len(low)
        for word in rules.NAMING_WORDS:
            at = low.find(word, claim.end, stop)
            if at > 0 and low[at - 1] == " ":
                naming.append((at, len(word)))
    at = low.find("our proposed ")
    if at >= 0:
        naming.append((at, 13))
    return claims, naming


def _name_at(text: str, start: int, descriptor: str = "", article_ok: bool = False) -> Name | None:
    """A name at `start`: a coined token, or a Title Case phrase set off by ',', '(' or ':'."""
    match = rules.NAME_PHRASE.match(text, start, start + 120)
    if not match:
        return None
    words = match.group(0).split(" ")
    while len(words) > 1 and not (words[-1][:1].isupper() or words[-1][:1].isdigit() or _VERSION.match(words[-1])):
        words.pop()
    if words[0] in _NOT_A_NAME or words[-1].endswith(("'s", "’s")):
        return None
    phrase = " ".join(words)
    end = start + len(phrase)
    after = text[end : end + 2]
    coined = rules.is_coined(phrase)
    if article_ok and not (coined or after == " ("):
        return None  # "the Transformer, ..." is not a new name; "the X benchmark" with a coined X is
    if len(words) == 1:
        if phrase in rules.COMMON or not (coined or after[:1] in ",(:"):
            return None
    elif not (after[:1] in ",:" or after in (" (", " -", " —")):
        return None
    paren = rules.ACRONYM_PAREN.match(text, end)
    if paren:
        inner = paren.group(1)
        if " " in phrase and (
            rules.initials_match(inner, phrase) or (rules.is_coined(inner) and inner[0] == phrase[0])
        ):  # "Position-Aware Confidence-Calibrated Sampling (PC-Sampler)" too
            return Name(inner, phrase, paren.end(), descriptor)
    expansion, end = _expansion_after(text, end, phrase)
    return Name(phrase, expansion, end, descriptor)


def _expansion_after(text: str, end: int, name: str) -> tuple[str, int]:
    """'X (Expansion)': the expansion and where the text after it starts (or '' and `end`)."""
    if text.startswith(" (", end):
        close = text.find(")", end, end + 160)
        inner = text[end + 2 : close] if close > 0 else ""
        if " " in inner and rules.initials_match(name, inner):
            return inner, close + 1
    return "", end


_DESCRIPTOR = re.compile(
    r"((?:an?|our|one|the) (?:[\w\-]+ ){0,6}?[\w\-]+)(?:, (?:(?:called|named|dubbed|termed|namely) )?|"
    r" (?:called|named|dubbed|termed) )[\"“']?"
)
_ARTICLE = re.compile(r"(?:the|our|an?) (?=[A-Z])")


def _named_after_claim(text: str, start: int) -> Name | None:
    """The name right after a contribution verb, after 'a novel framework,', or 'words (ACRONYM)'."""
    article = _ARTICLE.match(text, start)
    name = _name_at(text, article.end() if article else start, article_ok=bool(article))
    if name:
        last = name.name.rsplit(" ", 1)[-1]
        if article and article.group(0) == "the " and not name.expansion and last.lower() in rules.DESCRIPTOR_NOUNS:
            return name._replace(name="The " + name.name)  # "the Moralization Corpus" is named with its article
        return name
    match = _DESCRIPTOR.match(text, start, start + 100)
    if match:
        name = _name_at(text, match.end(), match.group(1))
        # "a novel framework, X" or, whatever the noun, "a new draft of licenses, ModelGo Licenses (MGLs)"
        if name and (rules.descriptor_before(match.group(0).lower()) or name.expansion or rules.is_coined(name.name)):
            return name
    stop = min(_sentence_end(text, start), start + 140)
    paren = rules.ACRONYM_PAREN.search(text, start, stop)
    if paren and rules.is_coined(paren.group(1)):
        expansion = rules.expansion_before(text, paren.start(), paren.group(1))
        at = text.find(expansion, start, paren.start())
        if expansion and at <= start + 40 and not rules.PREPOSITION.search(text, start, at):
            return Name(paren.group(1), expansion, paren.end())  # not "an approach to Speaker Diarization (SD)"
    return None


def _coined_tokens(text: str) -> Counter[str]:
    counts = Counter(rules.COINED.findall(text))
    for token in [t for t in counts if t[-1] == "s" and t[-2:-1].isupper()]:
        counts[token[:-1]] += counts.pop(token)
    return counts


def _uses(text: str, name: str) -> int:
    """How often `name` occurs as a whole word ("PRO-V" is not used in "PRO-V-R1")."""
    count, at = 0, text.find(name)
    while at >= 0:
        end = at + len(name)
        joined_before = at > 0 and (text[at - 1].isalnum() or text[at - 1] == "-")
        after = text[end : end + 2]
        joined_after = after[:1].isalnum() or (after[:1] == "-" and after[1:].isalnum())
        if not joined_before and not joined_after:
            count += 1
        at = text.find(name, end)
    return count


def _first_at(text: str, token: str) -> int:
    """Where `token` first occurs as a whole word (or -1)."""
    at = text.find(token)
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "-+"):
        at = text.find(token, at + 1)
    return at


def _best_name(text: str, low: str, claims: list[Claim], naming: list[tuple[int, int]]) -> Name | None:
    scored = _scored_names(text, low, claims, naming)
    if not scored:
        return None
    score, name = max(scored, key=lambda item: item[0])
    return name if score[0] >= MIN_SCORE else None


def _scored_names(
    text: str, low: str, claims: list[Claim], naming: list[tuple[int, int]]
) -> list[tuple[tuple[int, int], Name]]:
    """Candidate names of the paper, scored by how they are introduced (a contribution verb, a naming word,
    a descriptor noun, a repository) plus how often they are used; ties go to the earliest."""
    found: dict[str, tuple[int, int, Name]] = {}  # name -> (base, -position, Name)

    def add(name: Name | None, base: int, at: int) -> None:
        if name is None:
            return
        known = found.get(name.name)
        if known is None or base > known[0]:
            found[name.name] = (base, -at, known[2] if known else name)

    for claim in claims:
        if claim.verb in rules.MAKE_VERBS:
            add(_named_after_claim(text, claim.end), CLAIMED, claim.end)
    for at, length in naming:
        add(_name_at(text, at + length), CLAIMED, at)
    if found:  # a name the paper introduces outranks names seen only by frequency: no need to scan
        return [((base + min(_uses(text, n), MAX_COUNT), at), name) for n, (base, at, name) in found.items()]
    counts = _coined_tokens(text)
    background_end = claims[0].start if claims else _sentence_end(text, 0)
    for token, count in counts.items():
        if not rules.is_coined(token):
            continue
        at = _first_at(text, token)
        if at < 0:
            continue
        before = low[max(0, at - 60) : at]
        end = at + len(token)
        if rules.descriptor_before(before) or rules.APPOSITION_AFTER.match(text, end):
            base = DESCRIBED
        elif (
            before.endswith(("our ", "proposed ", "a ", "an "))
            and low[end : end + 1] == " "
            and low[end : end + 20].split(" ", 2)[1:2] in rules.DESCRIPTOR_LISTS
        ):
            base = DESCRIBED - 1  # "our X model"
        else:
            base = 0
        if base == 0 and (count < 2 or at < background_end):
            continue
        expansion = ""
        if before.endswith("("):
            expansion = rules.expansion_before(text, at - 1, token)
            end = text.find(")", at) + 1 or end
            if expansion and expansion.islower():
                base -= LOWER_PENALTY
        if not expansion:
            expansion, end = _expansion_after(text, end, token)
        add(Name(token, expansion if expansion[:1].isupper() else "", end, ""), base, at)
    repository = _repository_name(text)
    if repository and repository not in found:
        add(Name(repository, "", len(text), ""), REPOSITORY, text.find(repository))
    return [
        ((base + min(counts.get(name) or _uses(text, name), MAX_COUNT), position), record)
        for name, (base, position, record) in found.items()
    ]


def _repository_name(text: str) -> str:
    """'Code is at https://github.com/someone/NameOfMethod': the repository is usually named after the method."""
    at = text.find("://")
    while at >= 0:
        match = rules.REPOSITORY.match(text, at + 3)
        name = match.group(1).rstrip(".") if match else ""
        if name and rules.is_coined(name):
            return name
        at = text.find("://", at + 3)
    return ""


def _gist(text: str, name: Name) -> tuple[str, bool]:
    """What follows the name in its sentence: ('a framework for ...', True) for an appositive."""
    rest = text[name.end : _sentence_end(text, name.end)]
    if rest.startswith(" (") and ")" in rest:  # "X (X-Short), a ..."
        rest = rest[rest.index(")") + 1 :]
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
    noun = rest.split(" ", 2)[1:2]
    if noun and noun[0].rstrip(",:") in rules.DESCRIPTOR_NOUNS:  # "a Trans-XFed architecture that ..."
        return rules.fix_articles("a " + _clause(rest.strip())), True
    following = text[name.end : name.end + 600]
    for link in (" is a ", " is an ", ", a ", ", an "):
        again = following.find(name.name + link)
        if again >= 0:
            rest = following[again + len(name.name) + len(link) - 2 :].lstrip(" ,")
            return _clause(rest[: _sentence_end(rest, 0)]), True
    verb_phrase = rules.VERB_PHRASE.match(rest)
    if verb_phrase:  # "Our model, TabFlex, efficiently handles ..." -> "efficiently handles ..."
        return _clause(rest[verb_phrase.end() :]), False
    return "", False


def _with_name(text: str, name: Name, fallback: Callable[[], str]) -> tuple[str, str]:
    """The title's head (name and expansion) and its gist, joined as they should be."""
    gist, appositive = _gist(text, name)
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


def _spell_out(text: str, words: str) -> str:
    """Abbreviations the abstract defines ("large language models (LLMs)") spelled out, once each."""
    seen = set()
    for match in rules.ABBREVIATION.finditer(words):
        token = match.group(0)
        short = token[:-1] if token[-1] == "s" and token[-2].isupper() else token
        if short in seen or short in rules.KEEP_SHORT or _NAME_GOES_ON.match(words, match.end()):
            continue  # "OS Agents" is a name of its own
        seen.add(short)
        at = text.find(f" ({short}")
        if at < 0 or text[at + 2 + len(short) : at + 4 + len(short)] not in (")", "s)", ") ", "),", ").", "s)"):
            continue
        long = rules.expansion_before(text, at + 1, short)
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


def _claim_title(text: str, claim: Claim) -> str:
    rest = text[claim.end : _sentence_end(text, claim.end)]
    means = rules.BY_MEANS.match(rest)
    if means:  # "we address this gap by constructing X" -> "Constructing X"
        rest = rest[means.end() :]
        making = rules.MAKING.match(rest)
        if making:  # "... by introducing an algorithm that" -> "An algorithm that"
            rest = rest[making.end() :]
    if claim.verb in rules.THAT_VERBS or rest.lower().startswith(("that ", "how ", "whether ")):
        rest = rules.THAT_FILLER.sub("", rest)
    clause = _clause(rest)
    if len(clause.split()) < 3 or clause.lower().startswith(rules.ANAPHORA):
        return ""  # too short, or it needs the sentence before it ("the same holds for ...")
    return _capital(clause)


def _best_claim_title(text: str, claims: list[Claim]) -> str:
    for claim in claims:
        title = _claim_title(text, claim)
        if title:
            return title
    return ""


def _scene_title(text: str) -> str:
    sentence = text[: _sentence_end(text, 0)]
    clause = _clause(rules.SCENE.sub("", sentence))
    if len(clause.split()) < 3:
        clause = sentence.strip(" .")
    return _capital(clause)


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


def derive_title(plain: str) -> str:
    """A title of at most MAX_TITLE characters: the paper's name and gist, or its core claim."""
    text = plain[:SCAN_LIMIT].strip()
    if not text:
        return ""
    low = _lower(text)
    claims, naming = _claims(low)

    def claim_title() -> str:
        return _best_claim_title(text, claims)

    name = _best_name(text, low, claims, naming)
    if name:
        head, gist = _with_name(text, name, lambda: claim_title() or _scene_title(text))
    else:
        head, gist = "", claim_title() or _scene_title(text)
    if gist:
        gist = _spell_out(text, gist)
    if not head and low.find("position paper", 0, 400) >= 0:
        head = "Position: "  # the convention for position papers
    return cut(_tidy(head + gist))
