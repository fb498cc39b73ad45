"""Seeded synthetic paper files built from the arXiv sample's sentences.

    python bench/corpus.py 10000 100000     # writes to a temp dir and prints the paths

Generated files are never committed; benchmarks call `corpus_path(n)`, which caches them in
the system temp dir keyed by size and seed.
"""

from __future__ import annotations

import random
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "arxiv-cs-6k.txt"
SEED = 20250713
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def sample_path() -> Path:
    if not SAMPLE.is_file():
        raise SystemExit(f"missing {SAMPLE}: the arXiv sample lives in ../shared/data")
    return SAMPLE


def _abstracts() -> list[str]:
    text = sample_path().read_text(encoding="utf-8")
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    return paragraphs[1:]  # first paragraph is the header


def generate(n: int, seed: int = SEED) -> str:
    """An n-paper file: each abstract stitches 4-9 sentences of real abstracts, first ones first."""
    rng = random.Random(seed)
    abstracts = [_SPLIT.split(a) for a in _abstracts()]
    openers = [s[0] for s in abstracts]
    rest = [sentence for s in abstracts for sentence in s[1:]]
    out = [f"Synthetic corpus of {n} papers (seed {seed})"]
    for i in range(n):
        k = rng.randint(4, 9)
        sentences = [rng.choice(openers), *rng.sample(rest, k - 1)]
        out.append(" ".join(sentences) + f" (Ref {i}.)")
    return "\n\n".join(out) + "\n"


def corpus_path(n: int, seed: int = SEED) -> Path:
    target = Path(tempfile.gettempdir()) / "readlist-bench" / f"corpus-{n}-{seed}.txt"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".part")
        tmp.write_text(generate(n, seed), encoding="utf-8")
        tmp.replace(target)
    return target


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["10000", "100000"]:
        print(corpus_path(int(arg)))
