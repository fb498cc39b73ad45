"""Finding a paper again after its text (and so its id) changed, by comparing the stored snippet.

A paper is the same when the start of its abstract is nearly the same (a typo fixed, a sentence added
or cut further on) and the abstract's words are nearly those of the snippet, or a part of them (the
abstract cut short, or grown). Two papers can open with the same sentence of boilerplate ("Autoprompting
is the process of ..."): the words of the whole abstract tell them apart.

Comparing every lost snippet with every paper costs ~15 ms per lost annotation on 10,000 papers,
which adds up when a database is opened with another paper list (every annotation is then lost).
So candidates are first narrowed by the distinctive words they share with the snippet (an inverted
index without the words common to many papers), and only the few best are scored with rapidfuzz.
Building that index still costs ~0.2 s at 10,000 papers; when the same lost annotations found no
paper in the same list before, a marker in the cache directory says so and the search is skipped.

A record of a paper only given a status keeps the abstract's opening and a sketch of its other words (see
`annotation.reattach_key`), not the abstract: then the opening is compared as above (papers sharing its first
START characters word for word are candidates too: a boilerplate opening has no distinctive words), and the
words by the sketch, a sample of the record's words after its opening, of which a text holding nearly all of
them (or held in them nearly all, cut short) is the same abstract. Such a record whose opening was a title line
the list took off is not found again (its opening is nowhere): it is kept under missing papers, where
`readlist reattach` moves it by hand.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..papers.paper import Paper

THRESHOLD = 90.0  # rapidfuzz ratio (0-100) of the openings; a typo fix scores ~99, a different abstract rarely 60
WORDS_THRESHOLD = 90.0  # token_set_ratio of the whole texts; the same opening on another paper scores ~75
HEAD = 300  # characters of the opening compared
MIN_CHARS = 40  # shorter snippets say too little to re-attach on
MIN_SHARED = 0.3  # share of a snippet's distinctive words a candidate must contain to be scored
COMMON = 0.02  # words in more than this share of papers (and 20 of them) do not narrow anything
SHORTLIST = 8
START = 40  # characters of an opening that many papers may share word for word (boilerplate)
WIDE_SHORTLIST = 64  # papers sharing a record's START scored besides (with a sketch: their words tell them apart)
CONTAINED = 0.9  # share of a sketch's sampled words a text must hold (a typo fixed: ~0.96; another abstract ~0.2)
HELD_AT_LEAST = 0.5  # ... or, the text cut short, this share, and nearly all the text's words among the record's
TITLE_CHARS = 250  # a title line above an abstract is at most this long (the reader's own limit)

_WORD = re.compile(r"\w{4,}")


def match_key(snippet: str) -> str:
    return " ".join(snippet.casefold().split())


def _words(key: str) -> set[str]:
    return set(_WORD.findall(key))


class Matcher:
    """Candidates (id -> snippet) indexed once; `find(snippet)` is the one close candidate or None."""

    def __init__(self, candidates: Mapping[str, str], threshold: float = THRESHOLD):
        self.threshold = threshold
        self.keys = {cid: match_key(text) for cid, text in candidates.items()}
        postings: dict[str, list[str]] = defaultdict(list)
        for cid, key in self.keys.items():
            for word in _words(key[:HEAD]):
                postings[word].append(cid)
        limit = max(20, COMMON * len(self.keys))
        self.postings = {word: ids for word, ids in postings.items() if len(ids) <= limit}
        self.by_start: dict[str, list[str]] = defaultdict(list)  # an opening many share has no distinctive words:
        for cid, key in self.keys.items():  # those sharing its start are candidates too
            self.by_start[key[:START]].append(cid)

    def find(self, snippet: str, sketch: str = "") -> str | None:
        """The one candidate whose text is the record's with this snippet and sketch, or None."""
        key = match_key(snippet)
        if len(key) < MIN_CHARS or not self.keys:
            return None
        words = [word for word in _words(key[:HEAD]) if word in self.postings]
        shared: Counter[str] = Counter()
        for word in words:
            shared.update(self.postings[word])
        need = max(1, MIN_SHARED * len(words))
        head = key[:HEAD]  # a paper's opening is compared over as much as the snippet holds (an opening, see
        # `annotation.reattach_key`, is shorter than HEAD)
        chosen = [cid for cid, n in shared.most_common(SHORTLIST) if n >= need]
        if sketch:
            chosen += [cid for cid in self.by_start.get(key[:START], ())[:WIDE_SHORTLIST] if cid in self.keys]
        shortlist = {cid: self.keys[cid][: len(head)] for cid in chosen}
        if not shortlist and not sketch:
            return None
        from rapidfuzz import fuzz, process

        hits = process.extract(head, shortlist, scorer=fuzz.ratio, score_cutoff=self.threshold, limit=None)
        opening = [cid for _, _, cid in hits]
        if not opening:  # a title line added above the abstract (a list re-published with titles), or taken off
            opening = [cid for cid in shortlist if self.opens_after_title(key, self.keys[cid])]
        if sketch:
            same = [cid for cid in opening if sketch_holds(sketch, self.keys[cid], len(key))]
        else:
            same = [cid for cid in opening if fuzz.token_set_ratio(key, self.keys[cid]) >= WORDS_THRESHOLD]
        return same[0] if len(same) == 1 else None

    def opens_after_title(self, key: str, other: str) -> bool:
        """One text opens as the other does once a leading line of up to TITLE_CHARS characters is set aside:
        the match starts after a space, within the title's length, and not at the very start."""
        from rapidfuzz import fuzz

        for short, long in ((key, other), (other, key)):
            found = fuzz.partial_ratio_alignment(short[:HEAD], long[: HEAD + TITLE_CHARS], score_cutoff=self.threshold)
            if found is not None and 0 < found.dest_start <= TITLE_CHARS and long[found.dest_start - 1] == " ":
                return True
        return False

    def claim(self, cid: str) -> None:
        """A candidate re-attached once is not offered again."""
        key = self.keys.pop(cid, None)
        if key is None:
            return
        for word in _words(key):
            ids = self.postings.get(word)
            if ids is not None and cid in ids:
                ids.remove(cid)
        alike = self.by_start.get(key[:START])
        if alike is not None and cid in alike:
            alike.remove(cid)


def sketch_hashes(snippet: str, opening: int, count: int) -> tuple[int, list[int]]:
    """(how many distinct words of 4+ letters the text has after its first `opening` characters that are not in
    them, 16 bits of the CRC-32 of the `count` of them whose CRC-32 is lowest): a sample that is the same for the
    same words, whatever their order."""
    key = match_key(snippet)
    rest = _words(key) - _words(key[:opening])
    lowest = sorted(zlib.crc32(word.encode("utf-8", "surrogatepass")) for word in rest)[:count]
    return len(rest), [value & 0xFFFF for value in lowest]


def _hashed_words(key: str) -> set[int]:
    return {zlib.crc32(word.encode("utf-8", "surrogatepass")) & 0xFFFF for word in _words(key)}


def sketch_holds(sketch: str, other: str, opening: int) -> bool:
    """Whether the text `other` (a match key) has the words a record's sketch samples: nearly all of them, or, for a
    text cut short, most of them and among the record's words nearly all of its own after its `opening`."""
    count, sample = _sample(sketch)
    if count < 0:
        return False  # a hand-edited database: a sketch that is none says nothing
    if not sample:
        return True  # no words after the opening, whose comparison said it all
    words = _hashed_words(other)
    held = sum(value in words for value in sample) / len(sample)
    if held >= CONTAINED:
        return True
    own = len(_words(other) - _words(other[:opening]))
    return held >= HELD_AT_LEAST and held * count >= CONTAINED * own


def _sample(sketch: str) -> tuple[int, list[int]]:
    """(the count of words, the sampled words' hashes) a sketch holds; (-1, []) for one that is no sketch."""
    try:
        raw = base64.b64decode(sketch + "=" * (-len(sketch) % 4))
    except ValueError:
        return -1, []
    if not raw:
        return -1, []
    return raw[0], [int.from_bytes(raw[n : n + 2], "big") for n in range(1, len(raw) - 1, 2)]


def search_key(papers: Iterable[Paper], annotated: Iterable[str], lost: Iterable[tuple[str, str]]) -> str:
    """What a search for lost annotations depends on: the papers, which are annotated, the lost snippets."""
    from ..files.cache import papers_key

    header = f"reattach {THRESHOLD} {WORDS_THRESHOLD} {HEAD} {MIN_CHARS} {MIN_SHARED} {COMMON} {TITLE_CHARS}"
    header += f" sketch {START} {WIDE_SHORTLIST} {CONTAINED} {HELD_AT_LEAST}"
    for part in (sorted(annotated), sorted(f"{pid} {snippet}" for pid, snippet in lost)):
        header += "\n" + hashlib.blake2b("\n".join(part).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return papers_key(header, papers)


def _marker(key: str) -> Path:
    from ..files.cache import cache_dir

    return cache_dir("reattach") / key


def found_nothing_before(key: str) -> bool:
    try:
        return _marker(key).exists()
    except OSError:
        return False


def remember_nothing_found(key: str) -> None:
    """Best effort: without the marker the next start searches again, which is only slower."""
    from ..files.cache import prune, write_atomic

    try:
        write_atomic(_marker(key), [b""])
        prune(_marker(key).parent, "*", keep=20)
    except OSError:
        pass
