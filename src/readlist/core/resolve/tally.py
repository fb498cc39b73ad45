"""What a run of lookups came to, counted as the resolutions arrive: the summary line and one line per failing host.

The command and the terminal UI both say it this way (`17 found · 1 possible · 1 not found`)."""

from __future__ import annotations

from collections import Counter

from ..text.normalize import strip_control
from .records import Resolution, Status


class Tally:
    """The resolutions of a run counted by status, and the first problem of each host with the papers it hit."""

    def __init__(self, before: int = 0):
        self.counts: Counter[Status] = Counter()
        self.before = before  # papers chosen but not asked again (found, or missed lately)
        self.problems: dict[str, tuple[str, int]] = {}  # host -> (its first problem, papers it concerned)

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def add(self, resolution: Resolution) -> None:
        self.counts[resolution.status] += 1
        hosts: dict[str, str] = {}  # two sources on one host (a mirror) count the paper once there
        for problem in resolution.problems:
            hosts.setdefault(problem.partition(": ")[0], problem)
        for host, problem in hosts.items():
            first, n = self.problems.get(host, (problem, 0))
            self.problems[host] = (first, n + 1)

    def summary(self, before_hint: str = "") -> str:
        """'17 found · 1 possible · 1 not found', then the failed and those looked up before, when any."""
        parts = [f"{self.counts[Status.FOUND]} found", f"{self.counts[Status.POSSIBLE]} possible",
                 f"{self.counts[Status.NOT_FOUND]} not found"]  # fmt: skip
        if self.counts[Status.FAILED]:
            parts.append(f"{self.counts[Status.FAILED]} failed")
        if self.before:
            parts.append(f"{self.before} looked up before{before_hint}")
        return " · ".join(parts)

    def problem_lines(self, given_up: dict[str, str]) -> list[str]:
        """One line per host that failed: its first problem (or why it was given up), and how many papers."""
        lines = []
        for host, (first, n) in self.problems.items():
            line = f"{host}: {given_up[host]}" if host in given_up else first
            lines.append(strip_control(f"{line}; {n} paper{'s' if n != 1 else ''} not looked up there"))
        return lines
