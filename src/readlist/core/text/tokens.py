"""Search tokens: folding (case, accents, Greek letters), word splitting and a light plural stemmer.

The same rules serve the index (fast, whole-text) and highlighting (per token, with offsets),
so a word found in the index is the word highlighted on screen.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache

from .normalize import repair_hyphens, unwrap_word_braces

_GREEK_NAMES = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
    "ξ": "xi", "ο": "omicron", "π": "pi", "ϖ": "pi", "ρ": "rho", "ϱ": "rho", "σ": "sigma", "ς": "sigma",
    "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
}  # fmt: skip
GREEK_WORDS = frozenset(_GREEK_NAMES.values())
_GREEK_TABLE = str.maketrans({ch: f" {name} " for ch, name in _GREEK_NAMES.items()})
_GREEK_CHAR = re.compile("[" + "".join(_GREEK_NAMES) + "]")
_GREEK_SPLIT = re.compile(f"{_GREEK_CHAR.pattern}|[^{_GREEK_CHAR.pattern[1:-1]}]+")
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
WORD = re.compile(r"[^\W_]+")
_ASCII_SPACES = str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum()})

# Words too common to index or to require; they still count inside "exact phrases".
STOPWORDS = frozenset(
    "a an and are as at be been but by can do does for from had has have he her his how i if in into is it its "
    "may more most not of on or our she so such than that the their them then there these they this those to "
    "via was we were what when where which while who will with would you your".split()
)

# LaTeX for indexing without the full converter: Greek letters keep their names, other commands go.
# Formatting commands unwrap in place ("\textbf{P}olicy" reads "Policy", as the display form has it).
_LATEX_STYLE = re.compile(
    r"\\(?:text(?:bf|it|sc|sf|tt|rm|up|sl|md|normal)|emph|underline|math(?:bf|rm|it|sf|tt|cal|bb|frak)"
    r"|boldsymbol|bm)\s*\{([^{}\\]*)\}"
)
_LATEX_ACCENT = re.compile(r"\\[\"'`^~=.]\{?([A-Za-z])\}?")
_LATEX_COMMAND = re.compile(r"\\([A-Za-z]+)")
_VAR_GREEK = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varrho": "rho", "varpi": "pi"}


def _command(match: re.Match[str]) -> str:
    name = match.group(1).lower()
    name = _VAR_GREEK.get(name, name)
    return f" {name} " if name in GREEK_WORDS else " "


def fold(text: str) -> str:
    """Casefold, strip accents, spell Greek letters out (ε -> epsilon)."""
    text = text.casefold()
    if text.isascii():
        return text
    text = _COMBINING.sub("", unicodedata.normalize("NFKD", text))
    return text.translate(_GREEK_TABLE)


def index_form(text: str) -> str:
    """A cheap stand-in for `Paper.plain` that yields the same words: LaTeX commands reduced, hyphens repaired."""
    if "\\" in text:
        text = _LATEX_COMMAND.sub(_command, _LATEX_ACCENT.sub(r"\1", _LATEX_STYLE.sub(r"\1", text)))
    if "{" in text:
        text = unwrap_word_braces(text)  # "{G}eneration", as the display form reads it
    return fold(repair_hyphens(text))


TOKENS_VERSION = 4  # part of the search index cache's key: bump when folding, splitting or stemming changes
_SINGULAR_E = frozenset({"caches", "niches", "headaches", "avalanches", "psyches", "moustaches"})


def stem(word: str) -> str:
    """A light plural stemmer: networks -> network, studies -> study, classes -> class, boxes -> box."""
    if len(word) < 4 or word[-1] != "s" or not word[-2].isalpha():
        return word
    if word.endswith("ies") and len(word) > 4 and word[-4] not in "ae":
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")) and len(word) > 4 and word not in _SINGULAR_E:
        return word[:-2]
    if word.endswith(("ss", "us", "is", "ias")):
        return word
    return word[:-1]


# Chinese, Japanese and Korean write words without spaces between them: a run of their characters is read
# as its overlapping pairs ("强化学习" is 强化 化学 学习), so a word inside the run is found, as CJK search
# engines do. A single character stands alone.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_PARTS = re.compile(f"[{_CJK}]+|[^{_CJK}]+")


def is_cjk(word: str) -> bool:
    return CJK_CHAR.match(word) is not None


def _cjk_pairs(start: int, run: str) -> Iterator[tuple[int, str]]:
    if len(run) == 1:
        yield start, run
    for n in range(len(run) - 1):
        yield start + n, run[n : n + 2]


def split_words(folded: str) -> list[str]:
    """Words of folded text (the fast path for ASCII text); runs of CJK characters as overlapping pairs."""
    if folded.isascii():
        return folded.translate(_ASCII_SPACES).split()
    words = WORD.findall(folded)
    if not CJK_CHAR.search(folded):
        return words
    out: list[str] = []
    for word in words:
        if not CJK_CHAR.search(word):
            out.append(word)
            continue
        for part in _CJK_PARTS.findall(word):
            out.extend(pair for _, pair in _cjk_pairs(0, part)) if is_cjk(part) else out.append(part)
    return out


def word_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, folded word) for each word of display text; Greek letters are words of their own,
    a run of CJK characters is its overlapping pairs (as `split_words` reads it)."""
    for match in WORD.finditer(text):
        token = match.group(0)
        if token.isascii():
            yield match.start(), match.end(), token.casefold()
        elif CJK_CHAR.search(token):
            for part in _CJK_PARTS.finditer(token):
                at = match.start() + part.start()
                if is_cjk(part.group(0)):
                    for start, pair in _cjk_pairs(at, part.group(0)):
                        yield start, start + len(pair), fold(pair)
                else:
                    yield from _spans_of(at, part.group(0))
        else:
            yield from _spans_of(match.start(), token)


def _spans_of(at: int, token: str) -> Iterator[tuple[int, int, str]]:
    if not _GREEK_CHAR.search(token):
        yield at, at + len(token), "".join(WORD.findall(fold(token)))
        return
    for part in _GREEK_SPLIT.finditer(token):
        yield at + part.start(), at + part.end(), fold(part.group(0)).strip()


def _phrase_body(words: Sequence[str]) -> str:
    body = ""
    for n, word in enumerate(words):
        before = words[n - 1] if n else ""
        if is_cjk(word) and is_cjk(before[-1:]):
            if len(word) == 2 and len(before) == 2 and before[1] == word[0]:  # the next pair of the same run
                body += re.escape(word[1])
                continue
            body += r"[\W_]*"  # no space needed between CJK words
        elif n:
            body += r"[\W_]+"
        body += re.escape(stem(word)) + ("(?:e?s)?" if word.isalpha() and not is_cjk(word) else "")
    return body + ("" if is_cjk(words[-1][-1:]) else r"(?![^\W_])")  # a CJK word may end inside a run


def _bounded(words: Sequence[str]) -> bool:
    """Whether a phrase must start at a word boundary (not one starting with a CJK character)."""
    return not is_cjk(words[0][:1])


def phrase_pattern(words: Sequence[str]) -> re.Pattern[str]:
    """A regex finding folded words in a row in folded text, each word also in its plural form."""
    return re.compile((r"(?<![^\W_])" if _bounded(words) else "") + _phrase_body(words))


def phrase_finder(words: Sequence[str]) -> Callable[[str], bool]:
    """`phrase_pattern(words).search` as a test, several times faster (a leading look-behind defeats
    the regex engine's literal scan, so the word boundary before the phrase is checked here instead)."""
    body = re.compile(_phrase_body(words))
    bounded = _bounded(words)

    def found(text: str) -> bool:
        match = body.search(text)
        while match:
            at = match.start()
            if not bounded or not at or not text[at - 1].isalnum():
                return True
            match = body.search(text, at + 1)
        return False

    return found


# Word families: suffixes stripped to find a shared root, so "evaluating", "evaluated" and "evaluation" meet.
# A root is always a prefix of its word, and is only compared with other roots (never shown).
_ADVERB = (("ically", "ic"), ("ally", "al"), ("ently", "ent"), ("antly", "ant"), ("ively", "ive"),
           ("ously", "ous"), ("ingly", "ing"), ("edly", "ed"), ("ably", "able"), ("ibly", "ible"))  # fmt: skip
_DERIVED = ("ational", "ation", "ative", "ator", "ate", "ment", "ness", "ional")
_VOWELS = frozenset("aeiouy")
MIN_ROOT = 4


def _undouble(word: str) -> str:
    if len(word) >= MIN_ROOT and word[-1] == word[-2] and word[-1] not in "aeiousz":
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 16)
def root(word: str) -> str:
    """The root shared by a word's inflections and close derivations (a prefix of the word; may equal it)."""
    word = stem(word)
    if len(word) <= MIN_ROOT or not word.isalpha():
        return word
    for ending, replacement in _ADVERB:
        if word.endswith(ending) and len(word) - len(ending) >= MIN_ROOT - 1:
            word = word[: -len(ending)] + replacement
            break
    for ending, shortest in (("ing", 3), ("ed", 4)):
        base = word[: -len(ending)]
        if word.endswith(ending) and len(base) >= shortest and base[-1] != "e" and _VOWELS.intersection(base):
            word = base + "e" if base.endswith(("at", "iz", "ut")) else base if base[-1] == "l" else _undouble(base)
            break
    derived = False
    for ending in _DERIVED:
        if word.endswith(ending) and len(word) - len(ending) >= MIN_ROOT:
            word, derived = word[: -len(ending)] + ("ion" if ending == "ional" else ""), True
            break
    if word.endswith(("ction", "ssion", "ctive")):
        word = word[:-3]
    elif not derived and word.endswith("er") and len(word) >= MIN_ROOT + 3:
        word = _undouble(word[:-2])
    if word.endswith("e") and len(word) > MIN_ROOT:
        word = word[:-1]
    return word[:-1] if word.endswith("ll") and len(word) > MIN_ROOT else word
