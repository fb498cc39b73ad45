"""Finding the paper's own name ("we propose X, a ...", "called X", "Expansion (X)") and its expansion.

Candidates are scored by how they are introduced (a contribution verb or naming word, a descriptor
noun, a repository link) plus how often the abstract uses them; the best one leads the title.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from . import acronyms as acronyms
from . import rules as rules
from .claims import Claim
from .clauses import sentence_end

# Name scores: a base for how the name is introduced, plus how often it is used (at most 4).
CLAIMED = 4  # "we propose X", "called X"
DESCRIBED = 3  # "a new benchmark, X"
REPOSITORY = 3  # "github.com/someone/X"
MAX_COUNT = 4
LOWER_PENALTY = 3  # defined as "lower-case words (X)": more often field vocabulary than a new name
MIN_SCORE = 2
SECOND_MIN = 5  # a second name must be introduced as one (a claim or a descriptor) and used again
SECOND_GAP = 1  # and score almost as high as the first
_VERSION = re.compile(r"v\d")
_NOT_A_NAME = frozenset({"In", "We", "The", "This", "Our", "A", "An", "To", "For", "It", "Here", "These", "That"})
_DESCRIPTOR = re.compile(
    r"((?:an?|our|one|the) (?:[\w\-]+ ){0,6}?[\w\-]+)(?:, (?:(?:called|named|dubbed|termed|namely) )?|"
    r" (?:called|named|dubbed|termed) )[\"“']?"
)
_CALLED = re.compile(r",? (?:called|named|dubbed|termed|namely) [\"“']?")
_ARTICLE = re.compile(r"(?:the|our|an?) (?=[A-Z])")
_QUOTED = re.compile(r"[\"“‘']([A-Z][\w+\-.]*(?: [A-Z0-9][\w+\-.]*){0,3})[\"”’']")


class Name(NamedTuple):
    name: str
    expansion: str
    end: int  # where the text after the name (and its expansion) starts
    descriptor: str = ""  # "a framework" in "we propose a novel framework, X, ..."


def name_at(text: str, start: int, descriptor: str = "", article_ok: bool = False, named: bool = False) -> Name | None:
    """A name at `start`: a coined token, or a Title Case phrase set off by ',', '(' or ':'."""
    match = acronyms.NAME_PHRASE.match(text, start, start + 120)
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
    coined = acronyms.is_coined(phrase)
    if article_ok and not (coined or after == " ("):
        return None  # "the Transformer, ..." is not a new name; "the X benchmark" with a coined X is
    if len(words) == 1:
        if phrase in acronyms.COMMON or not (coined or after[:1] in (",(:.;" if named else ",(:")):
            return None
    elif not (after[:1] in ",:" or after in (" (", " -", " —")):
        return None
    paren = acronyms.ACRONYM_PAREN.match(text, end)
    if paren:
        inner = paren.group(1)
        if " " in phrase and (
            acronyms.initials_match(inner, phrase) or (acronyms.is_coined(inner) and inner[0] == phrase[0])
        ):  # "Position-Aware Confidence-Calibrated Sampling (PC-Sampler)" too
            return Name(inner, phrase, paren.end(), descriptor)
    expansion, end = expansion_after(text, end, phrase)
    return Name(phrase, expansion, end, descriptor)


def expansion_after(text: str, end: int, name: str) -> tuple[str, int]:
    """'X (Expansion)': the expansion and where the text after it starts (or '' and `end`)."""
    if text.startswith(" (", end):
        close = text.find(")", end, end + 160)
        inner = text[end + 2 : close] if close > 0 else ""
        if " " in inner and acronyms.initials_match(name, inner):
            return inner, close + 1
    return "", end


def named_after_claim(text: str, start: int) -> Name | None:
    """The name right after a contribution verb, after 'a novel framework,', or 'words (ACRONYM)'."""
    quoted = _QUOTED.match(text, start)
    if quoted and quoted.group(1) not in acronyms.COMMON:  # 'we introduce "Sparse-Reg": a regularization ...'
        expansion, end = expansion_after(text, quoted.end(), quoted.group(1))
        return Name(quoted.group(1), expansion, end)
    article = _ARTICLE.match(text, start)
    name = name_at(text, article.end() if article else start, article_ok=bool(article))
    if name:
        called = _CALLED.match(text, name.end)
        if called:  # "an Adversarial Self-Play Lawyer Framework, called ASP2LJ": the phrase spells the name out
            short = name_at(text, called.end())
            if short and short.name != name.name:
                return Name(short.name, short.expansion or name.name, short.end, name.descriptor)
        last = name.name.rsplit(" ", 1)[-1]
        if article and article.group(0) == "the " and not name.expansion and last.lower() in rules.DESCRIPTOR_NOUNS:
            return name._replace(name="The " + name.name)  # "the Moralization Corpus" is named with its article
        return name
    match = _DESCRIPTOR.match(text, start, start + 100)
    if match:
        name = name_at(text, match.end(), match.group(1))
        # "a novel framework, X" or, whatever the noun, "a new draft of licenses, ModelGo Licenses (MGLs)"
        if name and (
            rules.descriptor_before(match.group(0).lower()) or name.expansion or acronyms.is_coined(name.name)
        ):
            return name
    stop = min(sentence_end(text, start), start + 140)
    paren = acronyms.ACRONYM_PAREN.search(text, start, stop)
    if paren and acronyms.is_coined(paren.group(1)):
        expansion = acronyms.expansion_before(text, paren.start(), paren.group(1))
        at = text.find(expansion, start, paren.start())
        if expansion and at <= start + 40 and not rules.PREPOSITION.search(text, start, at):
            return Name(paren.group(1), expansion, paren.end())  # not "an approach to Speaker Diarization (SD)"
    return None


def best_names(
    text: str, low: str, claims: list[Claim], naming: list[tuple[int, int]]
) -> tuple[Name | None, Name | None]:
    """The paper's name and, when it introduces two about equally prominent ones (a benchmark and the method
    it motivates, a method and its model), the second one; the more prominent comes first."""
    scored = _scored_names(text, low, claims, naming)
    if not scored:
        return None, None
    scored.sort(key=lambda item: item[0], reverse=True)
    (score, name), second = scored[0], None
    if score[0] < MIN_SCORE:
        return None, None
    if len(scored) > 1:
        (runner_up, other), one, two = scored[1], name.name.lower(), scored[1][1].name.lower()
        close = runner_up[0] >= max(SECOND_MIN, score[0] - SECOND_GAP)
        if close and acronyms.is_coined(other.name) and one not in two and two not in one:
            second = other  # not "VisJudge" beside "VisJudge-Bench": one name is part of the other
    return name, second


def _claim_weight(low: str, claim: Claim) -> int:
    """+1 for the contribution that answers the problem ("To address this, we propose X"), -1 for a side one
    ("we also release X")."""
    if " also " in low[claim.start : claim.end]:
        return -1
    start = low.rfind(". ", 0, claim.start) + 1
    return 1 if rules.RESPONSE_CUE.search(low, start, claim.start) else 0


def _scored_names(
    text: str, low: str, claims: list[Claim], naming: list[tuple[int, int]]
) -> list[tuple[tuple[int, int], Name]]:
    """Candidate names of the paper, scored by how they are introduced (a contribution verb, a naming word,
    a descriptor noun, a repository) plus how often they are used; ties go to the earliest."""
    found: dict[str, tuple[int, int, Name]] = {}  # name -> (base, -position, Name)

    def add(name: Name | None, base: int, at: int) -> None:
        if name is None or not any(map(str.isalpha, name.name)):  # "we collect 105 scenarios": a count
            return
        known = found.get(name.name)
        if known is None or base > known[0]:
            found[name.name] = (base, -at, known[2] if known else name)

    for claim in claims:
        if claim.verb in rules.MAKE_VERBS:
            add(named_after_claim(text, claim.end), CLAIMED + _claim_weight(low, claim), claim.end)
    for at, length in naming:  # "called Quartet." is a name; "proposes Transformers." need not be
        add(name_at(text, at + length, named=True), CLAIMED, at)
    if found:  # a name the paper introduces outranks names seen only by frequency: no need to scan
        return [((base + min(acronyms.uses(text, n), MAX_COUNT), at), name) for n, (base, at, name) in found.items()]
    counts = acronyms.coined_tokens(text)
    background_end = claims[0].start if claims else sentence_end(text, 0)
    for token, count in counts.items():
        if not acronyms.is_coined(token):
            continue
        at = acronyms.first_at(text, token)
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
            expansion = acronyms.expansion_before(text, at - 1, token)
            end = text.find(")", at) + 1 or end
            if expansion and expansion.islower():
                base -= LOWER_PENALTY
        mentioned = text.rfind(expansion, 0, at) if expansion else at  # the name's first mention, spelled out or not
        if merely_used(text, low, mentioned if mentioned >= 0 else at, end):
            continue  # "we use BoTorch, a library for ...", "by using Kolmogorov Arnold Networks (KANs)"
        if not expansion:
            expansion, end = expansion_after(text, end, token)
        add(Name(token, expansion if expansion[:1].isupper() else "", end, ""), base, at)
    repository = _repository_name(text)
    if repository and repository not in found:
        add(Name(repository, "", len(text), ""), REPOSITORY, text.find(repository))
    return [
        ((base + min(counts.get(name) or acronyms.uses(text, name), MAX_COUNT), position), record)
        for name, (base, position, record) in found.items()
    ]


def merely_used(text: str, low: str, at: int, end: int) -> bool:
    """Is the name mentioned first at `at` (spelled out, when it is an acronym), ending at `end`, one the paper uses
    rather than its own: "we use BoTorch, a library", "on CaseHOLD", "compared with Particle Swarm Optimisation
    (PSO)", or a kind of method ("a Gaussian Process (GP) prior")? Not when it is called new ("using DolusChat, a
    novel dataset")."""
    start = max(low.rfind(". ", 0, at) + 2, at - 120, 0)
    used = rules.USED_BEFORE.search(low, start, at) or rules.RESOURCE_BEFORE.search(low, start, at)
    if used and not rules.NEW_AFTER.match(low, end):
        return True
    return text[:at].endswith(("a ", "an ")) and end > at and text[end - 1 : end] == ")" and _a_kind(text, end)


def _a_kind(text: str, end: int) -> bool:
    """A noun after a spelled-out acronym that says what kind of thing it is: "(DRL) approach", "(HE) method"."""
    return rules.KIND_AFTER.match(text[end : end + 40].lower()) is not None


def _repository_name(text: str) -> str:
    """'Code is at https://github.com/someone/NameOfMethod': the repository is usually named after the method. Not a
    folder name ("LLM_EWC", "BEA_2025") or a curated list ("Awesome-LLM-Psychometrics")."""
    at = text.find("://")
    while at >= 0:
        match = rules.REPOSITORY.match(text, at + 3)
        name = match.group(1).rstrip(".").removesuffix(".git") if match else ""
        if name and acronyms.is_coined(name) and "_" not in name and not name.startswith("Awesome"):
            return name
        at = text.find("://", at + 3)
    return ""
