"""The app's memory stays flat however many searches it runs."""

from __future__ import annotations

import asyncio
import gc
import os
import platform
import random
from itertools import accumulate
from pathlib import Path

import pytest

from readlist.core.papers.reader import parse_text
from readlist.tui.app import ReadlistApp

from .conftest import settle, wait_until

STATM = Path("/proc/self/statm")


def synthetic_papers(count: int, seed: int = 7) -> tuple[str, list[str]]:
    """`count` abstracts of made-up words, common ones and rare ones, as a large paper file has."""
    rng = random.Random(seed)
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "zen", "tra", "pel", "dor", "gri", "qua", "fes"]
    words = sorted({"".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(20_000)})
    common_first = list(accumulate(1 / (rank + 1) for rank in range(len(words))))
    paragraphs = [
        " ".join(rng.choices(words, cum_weights=common_first, k=rng.randint(60, 140))) + "." for _ in range(count)
    ]
    return "\n\n".join(paragraphs) + "\n", words


def resident_mb() -> float:
    return int(STATM.read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.slow
@pytest.mark.skipif(not STATM.exists(), reason="reads the resident size from /proc")
async def test_memory_stays_flat_over_300_searches_typed_quickly(tmp_path, monkeypatch):
    # Textual's thread workers run on asyncio's default thread pool, which has more threads on a machine with
    # more cores: as on a 28-core one. A thread that searches 10,000 papers keeps memory for it (its malloc arena).
    monkeypatch.setattr(os, "cpu_count", lambda: 28)
    text, words = synthetic_papers(10_000)
    app = ReadlistApp(parse_text(text, str(tmp_path / "papers.txt")), tmp_path / "db.json", cursor_blink=False)
    rng = random.Random(11)

    def queries(count: int):
        """Searches as typed: each word letter by letter, and now and then a second word."""
        made: list[str] = []
        while len(made) < count:
            words_typed = " ".join(rng.choice(words) for _ in range(rng.choice((1, 1, 2))))
            made += [words_typed[:end] for end in range(1, len(words_typed) + 1) if words_typed[end - 1] != " "]
        return made[:count]

    async def search(count: int, typed: bool = True) -> None:
        main = app.main_screen
        for query in queries(count):
            if main.view.set_search(query):  # as the search bar does with each key
                main.searcher.refresh()
            await (asyncio.sleep(0) if typed else main.searcher.settled())  # typed: each while the last still runs
        await main.searcher.settled()
        gc.collect()

    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.main_screen.searcher.index is not None, timeout=60, what="the search index")
        await settle(pilot)  # the derived titles too: no work but the searches' from now on
        await search(50, typed=False)  # warm-up: caches filled, the list drawn
        before = resident_mb()
        await search(300)
        after = resident_mb()
    assert after <= before * 1.1, f"{before:.0f} MB after warm-up, {after:.0f} MB after 300 more searches"


FREED_BLOCK = r"""
import os
import platform
import readlist.tui.app  # what the app's process does before it reads a paper file

def resident_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

decoded = b"x" * (20 << 20)  # a cache file's bytes, freed once decoded: glibc then serves blocks under 20 MB
del decoded  # from its heap, unless told otherwise
before = resident_mb()
block = b"y" * (16 << 20)
kept = b"z" * (256 << 10)  # made after it, kept
del block
print(resident_mb() - before)
"""


@pytest.mark.skipif(not STATM.exists() or platform.libc_ver()[0] != "glibc", reason="glibc's malloc, read from /proc")
def test_a_large_block_the_app_frees_is_given_back_to_the_system():
    import subprocess
    import sys

    held = subprocess.run([sys.executable, "-c", FREED_BLOCK], capture_output=True, text=True, check=True).stdout
    assert float(held) < 4  # MB: the 16 MB block is not kept, though a block made after it is
