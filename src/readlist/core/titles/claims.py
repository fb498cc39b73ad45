"""The paper's core claim, the title when the paper coins no name: the object of "we propose/study/show ...",
or, when there is no such claim, the main clause of the first sentence without its scene-setting opener.
"""

from __future__ import annotations

from typing import NamedTuple

from . import rules as rules
from .clauses import capital, first_clause, sentence_end


class Claim(NamedTuple):
    start: int
    end: int
    verb: str


def find_claims(low: str) -> tuple[list[Claim], list[tuple[int, int]]]:
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


def claim_title_at(text: str, claim: Claim) -> str:
    rest = text[claim.end : sentence_end(text, claim.end)]
    means = rules.BY_MEANS.match(rest)
    if means:  # "we address this gap by constructing X" -> "Constructing X"
        rest = rest[means.end() :]
        making = rules.MAKING.match(rest)
        if making:  # "... by introducing an algorithm that" -> "An algorithm that"
            rest = rest[making.end() :]
    if claim.verb in rules.THAT_VERBS or rest.lower().startswith(("that ", "how ", "whether ")):
        rest = rules.THAT_FILLER.sub("", rest)
    clause = first_clause(rest)
    if len(clause.split()) < 3 or clause.lower().startswith(rules.ANAPHORA):
        return ""  # too short, or it needs the sentence before it ("the same holds for ...")
    return capital(clause)


def claim_title(text: str, claims: list[Claim]) -> str:
    for claim in claims:
        title = claim_title_at(text, claim)
        if title:
            return title
    return ""


def scene_title(text: str) -> str:
    sentence = text[: sentence_end(text, 0)]
    clause = first_clause(rules.SCENE.sub("", sentence))
    if len(clause.split()) < 3:
        clause = sentence.strip(" .")
    return capital(clause)
