"""Killing a writer at any moment (SIGKILL, 200 times) never breaks the file nor loses a reported write."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from readlist.core.store import Store

KILLS = 200
LANES = 4  # independent databases killed in parallel, to keep the test short

WRITER = r"""
import sys
from readlist.core.paper import Paper
from readlist.core.store import Store

store = Store(sys.argv[1])
print("ready", flush=True)
n = int(sys.argv[2])
while True:
    paper = Paper(id=f"{n:012x}", index=1, text=f"abstract {n} " * 20)
    store.update(paper, note=f"note {n}", starred=True, tags=["crash", f"t{n % 7}"])
    if store.pending_error:
        print("error", store.pending_error, flush=True)
        break
    print(n, flush=True)
    n += 1
"""


def run_lane(lane: int, kills: int, directory) -> list[str]:
    """Start a writer, kill it after a random delay, check the file; repeat. Returns problems found."""
    rng = random.Random(lane)
    db = directory / f"lane{lane}.json"
    done: list[int] = []
    problems: list[str] = []
    for kill in range(kills):
        first = (lane * kills + kill) * 10_000
        command = [sys.executable, "-c", WRITER, str(db), str(first)]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(rng.uniform(0, 0.04))
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        lines = out.split()
        if "error" in lines:
            problems.append(f"writer reported an error: {out.strip()}")
        done += [int(line) for line in lines if line.isdigit()]
        store = Store(db)
        if store.notices:
            problems.append(f"kill {kill}: {store.notices}")
        annotations = store.all()
        lost = [n for n in done if f"{n:012x}" not in annotations or annotations[f"{n:012x}"].note != f"note {n}"]
        if lost:
            problems.append(f"kill {kill}: {len(lost)} reported writes missing, e.g. {lost[:3]}")
        if problems:
            break
    if not done:
        problems.append(f"lane {lane}: the writer never completed a write before being killed")
    return problems


def test_sigkill_at_random_moments_keeps_every_reported_write(tmp_path):
    with ThreadPoolExecutor(LANES) as pool:
        results = list(pool.map(lambda lane: run_lane(lane, KILLS // LANES, tmp_path), range(LANES)))
    assert [problem for lane in results for problem in lane] == []
    leftovers = [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert leftovers == []
