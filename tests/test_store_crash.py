"""Killing a writer at any moment (SIGKILL, 200 times) never breaks the file nor loses a reported write."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from readlist.core.store.store import Store

KILLS = 200
LANES = 4  # independent databases killed in parallel, to keep the test short

# One process per lane imports readlist once, then forks a fresh writer for every kill: a writer
# starts in about a millisecond instead of the ~100 ms a new interpreter needs, so 200 kills stay fast.
# Lines on stdout: "ready PID" from a writer, then one number per completed write; "dead PID" from
# the forking process once the writer is reaped (so every line the writer wrote comes before it).
FORKER = r"""
import os, sys
from readlist.core.papers.paper import Paper
from readlist.core.store.store import Store

def say(text):
    os.write(1, (text + "\n").encode())

def writer(db, n):
    store = Store(db)
    say(f"ready {os.getpid()}")
    while True:
        paper = Paper(id=f"{n:012x}", index=1, text=f"abstract {n} " * 20)
        store.update(paper, note=f"note {n}", starred=True, tags=["crash", f"t{n % 7}"])
        if store.pending_error or store.notices:
            say(f"error {store.pending_error} {store.notices}")
            os._exit(1)
        say(str(n))
        n += 1

for line in sys.stdin:
    db, first = line.split()
    pid = os.fork()
    if pid == 0:
        try:
            writer(db, int(first))
        finally:
            os._exit(1)
    os.waitpid(pid, 0)
    say(f"dead {pid}")
"""


def run_lane(lane: int, kills: int, directory) -> list[str]:
    """Start a writer, kill it after a random delay, check the file; repeat. Returns problems found."""
    rng = random.Random(lane)
    db = directory / f"lane{lane}.json"
    done: list[int] = []
    problems: list[str] = []
    longest = 0.03  # the longest wait before a kill; it grows on a machine too busy to write in time
    forker = subprocess.Popen(
        [sys.executable, "-c", FORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        for kill in range(kills):
            forker.stdin.write(f"{db} {(lane * kills + kill) * 10_000}\n")
            forker.stdin.flush()
            ready = forker.stdout.readline().split()
            assert ready[:1] == ["ready"], ready
            time.sleep(rng.uniform(0, longest))
            os.kill(int(ready[1]), signal.SIGKILL)
            before = len(done)
            for line in iter(forker.stdout.readline, ""):
                if line.startswith("dead"):
                    break
                if not line.strip().isdigit():
                    problems.append(f"writer said: {line.strip()}")
                else:
                    done.append(int(line))
            if len(done) == before:  # killed before its first write: wait longer next time
                longest = min(longest * 1.5, 1.0)
            store = Store(db)
            if store.notices:
                problems.append(f"kill {kill}: {store.notices}")
            annotations = store.all()
            lost = [n for n in done if f"{n:012x}" not in annotations or annotations[f"{n:012x}"].note != f"note {n}"]
            if lost:
                problems.append(f"kill {kill}: {len(lost)} reported writes missing, e.g. {lost[:3]}")
            if problems:
                break
    finally:
        forker.stdin.close()
        forker.wait(timeout=30)
    if len(done) < kills // 4:  # the kills must land among writes, not only before the first one
        problems.append(f"lane {lane}: only {len(done)} writes completed in {kills} runs; kills came too early")
    return problems


@pytest.mark.slow
def test_sigkill_at_random_moments_keeps_every_reported_write(tmp_path):
    with ThreadPoolExecutor(LANES) as pool:
        results = list(pool.map(lambda lane: run_lane(lane, KILLS // LANES, tmp_path), range(LANES)))
    assert [problem for lane in results for problem in lane] == []
    leftovers = [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert leftovers == []
