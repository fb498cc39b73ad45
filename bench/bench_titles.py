"""Derived titles against the real titles of the arXiv sample, side by side with the baseline.

    python bench/bench_titles.py [--runs 5] [--show N]

Figures: recall of the real title's content words (lowercased, stopwords removed, word sets,
averaged over papers), then the same with plural and singular as one word ("models" is "model"; read
this way the baseline scores the 25% measured when the targets were set); how often the real title's
leading name (the part before a colon, at most 40 characters) appears in the derived title
(case-insensitive substring; "Long Form (LF)" also counts when both "Long Form" and "LF" are there, as
in "LF: Long Form"); share of titles within 90 characters; mean microseconds per title (median of
the runs). A second table counts the derived titles that lead with a name the real title lacks, the paper's
own coined name (fine) apart from something else it merely uses (see `leads_elsewhere`). The "ceiling"
row says how often the leading name occurs in the abstract at all, the most any title made from the
abstract can reach; many leading names are catchy phrases ("Mark My Words")
that the abstract never uses. Its word recall is that of the abstract's best sentence, cut to the
title length and picked knowing the real title. The bundled ICML list is printed under the table.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import median_time, print_table
from corpus import sample_path

from readlist.core.papers.reader import read_papers
from readlist.core.text.normalize import fold
from readlist.core.titles.derive import MAX_TITLE, cut, derive_title

ROOT = Path(__file__).resolve().parents[1]
ICML = ROOT / "data" / "icml2025.txt"
LEADING_NAME_MAX = 40
_WORD = re.compile(r"[^\W_]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SPELLED_OUT = re.compile(r"(.+?) \(([^()]+)\)")
STOPWORDS = frozenset(
    """a an the and or nor but of for to in on at by with from into onto via as is are be
    been being was were its it this that these those their our we you your his her than then
    so such not no do does can could should would will may might must using use based towards
    toward through over under between within without about against across beyond vs versus
    what when where which who whom why how all any each more most other some both only own
    same too very just up down out off again further once here there if while after before""".split()
)


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(fold(text)) if w not in STOPWORDS}


def singular(word: str) -> str:
    """'models' -> 'model', 'studies' -> 'study'; 'class', 'analysis' and 'bias' stay."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "is", "us")):
        return word[:-1]
    return word


def recall(got: str, real: str, fold_plurals: bool = False) -> float | None:
    want, have = content_words(real), content_words(got)
    if fold_plurals:
        want, have = {singular(w) for w in want}, {singular(w) for w in have}
    return len(want & have) / len(want) if want else None


def name_found(name: str, title: str) -> bool:
    """Is the leading name in the title? 'Long Form (LF)' is also found as 'LF: Long Form' (both parts present)."""
    name, title = name.casefold(), title.casefold()
    if name in title:
        return True
    paren = _SPELLED_OUT.fullmatch(name)
    return bool(paren) and paren.group(1) in title and _whole_word(paren.group(2), title)


def _whole_word(word: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def leading_name(title: str) -> str | None:
    if ":" not in title:
        return None
    head = title.split(":", 1)[0].strip()
    return head if head and len(head) <= LEADING_NAME_MAX else None


def name_ceiling(plains: list[str], truth: list[str]) -> str:
    """How many of the real leading names occur in the abstract at all (the same check, on the abstract)."""
    names = [(leading_name(real), plain) for plain, real in zip(plains, truth, strict=True)]
    named = [(name, plain) for name, plain in names if name is not None]
    found = sum(name_found(name, plain) for name, plain in named)
    return f"{100 * found / len(named):.1f}% ({found}/{len(named)})"


def sentence_ceiling(plains: list[str], truth: list[str]) -> str:
    """Word recall of the abstract's best sentence (cut to the title length), picked knowing the real title:
    what choosing one sentence well can reach at most."""
    totals = [0.0, 0.0]
    for plain, real in zip(plains, truth, strict=True):
        for n, fold_plurals in enumerate((False, True)):
            totals[n] += max(recall(cut(s), real, fold_plurals) or 0.0 for s in _SENTENCE.split(plain))
    return " / ".join(f"{100 * total / len(plains):.1f}%" for total in totals)


def first_sentence(plain: str) -> str:
    return _SENTENCE.split(plain.strip(), maxsplit=1)[0].rstrip(".")


def baseline(plain: str) -> str:
    return cut(first_sentence(plain))


def real_titles() -> list[str]:
    path = sample_path().with_suffix(".titles.tsv")
    titles = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        index, title = line.split("\t", 1)
        titles[int(index)] = title
    return [titles[i] for i in sorted(titles)]


def score(fn: Callable[[str], str], plains: list[str], truth: list[str], runs: int) -> list[str]:
    derived = [fn(p) for p in plains]
    recalls = [0.0, 0.0]
    named = hits = 0
    for got, real in zip(derived, truth, strict=True):
        for n, fold_plurals in enumerate((False, True)):
            recalls[n] += recall(got, real, fold_plurals) or 0.0
        name = leading_name(real)
        if name is not None:
            named += 1
            hits += name_found(name, got)
    short = sum(len(t) <= MAX_TITLE for t in derived)
    seconds = median_time(lambda: [fn(p) for p in plains], runs)
    return [
        " / ".join(f"{100 * total / len(plains):.1f}%" for total in recalls),
        f"{100 * hits / named:.1f}% ({hits}/{named})",
        f"{100 * short / len(plains):.1f}%",
        f"{1e6 * seconds / len(plains):.1f}",
    ]


# Where the abstract introduces a name as its own: a contribution verb or "our" before it in its sentence, a naming
# word right before it, or "a new/novel ..." right after it.
_INTRODUCED = re.compile(
    r"\b(?:we|our|this (?:paper|work|study|article)|here)\b[^.]*?\b(?:propos|introduc|present|develop|design|buil[dt]|"
    r"construct|creat|releas|curat|contribut|call|nam|term|dub|coin|offer|devis|formulat|establish|describ|deliver|"
    r"craft|assembl|collect|compil|launch|open-sourc)",
    re.IGNORECASE,
)
_NAMED = re.compile(r"\b(?:called|named|dubbed|termed|namely|coined)\s+[\"“']?$", re.IGNORECASE)
_USED = re.compile(
    r"\b(?:us(?:e|es|ed|ing)|with|on|via|from|of|by|based on|built on|such as|like|including|leverag\w*|employ\w*|"
    r"adopt\w*|apply\w*|applied|existing|popular|standard|widely[- ]used|well[- ]known|e\.g\.,?)\s+(?:the\s+|an?\s+)?"
    r"(?:\w+\s+)?$",
    re.IGNORECASE,
)
_SMALL_WORDS = frozenset("of for and the in on with to a an via by".split())


def spelled_out(name: str, rest: str) -> str | None:
    """'KAN' and 'Kolmogorov Arnold Networks, …' (what follows the colon): the words whose initials spell the name."""
    letters = [c for c in name if c.isupper()]
    words, spelled = [], 0
    for word in re.split(r"[\s\-]+", rest.strip()) if len(letters) >= 2 else []:
        core = word.rstrip(",.;:")
        if core[:1].upper() == letters[spelled]:
            spelled += 1
        elif not (core.lower() in _SMALL_WORDS and words):
            return None
        words.append(core)
        if spelled == len(letters):
            return " ".join(words)
        if core != word:
            return None
    return None


def _flat(text: str) -> str:
    return re.sub(r"[\s\-‐–]+", " ", fold(text)).strip()


def introduced(plain: str, name: str) -> bool:
    """Does the abstract introduce `name` as its own where it first mentions it (not "we use X", "on X")?"""
    found = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", plain)
    at = found.start() if found else plain.find(name)
    if at < 0:
        return False
    before = plain[plain.rfind(". ", 0, at) + 2 : at]
    if _NAMED.search(before):
        return True
    if re.search(r"\bour\s+(?:[\w-]+\s+){0,3}$", before):
        return True
    if _USED.search(before[-40:]):
        return False
    after = plain[at + len(name) : at + len(name) + 40]
    return bool(_INTRODUCED.search(before) or re.match(r"[,\s]*(?:\([^)]*\))?[,\s]*an? (?:new|novel)\b", after))


def leads_elsewhere(derived: list[str], plains: list[str], truth: list[str]) -> list[str]:
    """Derived titles that lead with a name ("X: …", not "Position: …") which the real title lacks, split into
    the paper's own coined name (no other paper of the sample mentions it, spelled out or not, and the abstract
    introduces it: "we propose X", "our X", "called X", "X, a novel …") and something else: a tool, dataset,
    model or field term the paper uses ("BoTorch: …" where the paper uses BoTorch), or a topic phrase."""
    flat = [_flat(p) for p in plains]
    same_paper = [_flat(t) for t in truth]  # a paper in the sample twice is not another paper
    named = own = other = 0
    for i, (got, real) in enumerate(zip(derived, truth, strict=True)):
        name = leading_name(got)
        if name is None or name == "Position":
            continue
        named += 1
        if name_found(name, real):
            continue
        spelled = spelled_out(name, got.split(":", 1)[1])
        if spelled:
            pattern = re.compile(rf"(?<!\w){re.escape(_flat(spelled))}(?!\w)")
            texts = flat
        else:
            pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
            texts = plains
        elsewhere = any(j != i and same_paper[j] != same_paper[i] and pattern.search(t) for j, t in enumerate(texts))
        first = name.split(" and ")[0]
        mine = introduced(plains[i], first) or bool(spelled and introduced(plains[i], spelled))
        if mine and not elsewhere:
            own += 1
        else:
            other += 1
    return [
        f"{named}",
        f"{100 * own / named:.1f}% ({own})",
        f"{100 * other / named:.1f}% ({other})",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--show", type=int, default=0, help="also print the first N sample titles")
    args = parser.parse_args()

    start = time.perf_counter()
    papers = read_papers(sample_path()).papers
    plains = [p.plain for p in papers]
    truth = real_titles()
    if len(truth) != len(plains):
        raise SystemExit(f"{len(plains)} papers but {len(truth)} titles")
    print(f"{len(plains)} abstracts read and converted in {time.perf_counter() - start:.1f} s")

    ceiling = ["ceiling (best sentence; name)", sentence_ceiling(plains, truth), name_ceiling(plains, truth)]
    rows = [
        ["baseline (first sentence, cut)", *score(baseline, plains, truth, args.runs)],
        ["derive_title", *score(derive_title, plains, truth, args.runs)],
        [*ceiling, "", ""],
        ["target", ">= 40%", ">= 65%", "100%", ""],
    ]
    print(f"\nDerived titles vs real titles (time: median of {args.runs} runs)")
    print_table(["method", "word recall (plurals folded)", "leading name found", "<= 90 chars", "µs/title"], rows)

    derived = [derive_title(p) for p in plains]
    print("\nDerived titles leading with a name (X: …) the real title lacks")
    print_table(
        ["method", "titles led by a name", "the paper's own coined name (fine)", "something else (the defect)"],
        [["derive_title", *leads_elsewhere(derived, plains, truth)]],
    )

    for n, (plain, real) in enumerate(zip(plains[: args.show], truth, strict=False), 1):
        print(f"\n{n:>4} real: {real}\n     got:  {derive_title(plain)}")

    print(f"\nBundled list ({ICML.name})")
    for paper in read_papers(ICML).papers:
        print(f"{paper.index:>3}  {derive_title(paper.plain)}")


if __name__ == "__main__":
    main()
