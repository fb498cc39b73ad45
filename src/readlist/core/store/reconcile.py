"""Re-attaching annotations after the paper file changed: the change that moves each annotated paper's
record to the new id of its paper (found by its snippet, see `reattach`), and what to tell the user.
`Store.reconcile` commits it under the file lock; nothing here reads or writes the database."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from ..papers.paper import Paper, PaperList
from ..text.normalize import quoted, strip_control
from .annotation import Annotation, cut_label, snippet_of, title_of
from .changes import REATTACH, Change, iso
from .reattach import Matcher, found_nothing_before, remember_nothing_found, search_key


def reconcile_change(
    annotations: dict[str, Annotation], papers: PaperList, now: datetime, quiet_repeats: bool = False
) -> tuple[Change | None, list[str]]:
    """The change re-attaching annotations whose paper text changed (new id), None when there is none, and the
    messages saying what moved and how many stay orphans (kept, never deleted). With `quiet_repeats`, orphans
    a search found nothing for before, with the same papers, go unmentioned."""
    by_id = papers.by_id
    messages: list[str] = []
    when, group = iso(now), uuid.uuid4().hex[:12]
    change = Change()
    lost = [ann for pid, ann in annotations.items() if pid not in by_id and not ann.is_default]
    matcher, searched = None, None
    if lost:
        searched = search_key(papers.papers, annotations, [(ann.id, ann.snippet) for ann in lost])
        if found_nothing_before(searched):  # the same papers, the same lost annotations: no match
            if not quiet_repeats:
                messages.append(orphans_message(len(lost), papers))
            lost, searched = [], None
        else:
            untouched = [p for p in papers.papers if p.id not in annotations or annotations[p.id].is_default]
            matcher = Matcher({p.id: snippet_of(p.text) for p in untouched})
    orphans = 0
    for ann in lost:
        new = matcher.find(ann.snippet)
        if new is None:
            orphans += 1
            continue
        matcher.claim(new)
        if new in annotations:  # an emptied record of its own (starred, then not): filled, not renamed
            change.sets[new] = carried(ann) | {"snippet": snippet_of(by_id[new].text)}
            change.sets[ann.id] = carried(Annotation(ann.id))
        else:
            change.renames.append((ann.id, new))
            change.sets[new] = {"snippet": snippet_of(by_id[new].text)}
        change.events.append(
            {"time": when, "paper": new, "action": REATTACH, "before": {"id": ann.id}, "after": {"id": new}}
            | {"group": group}
        )
        messages.append(reattached_message(by_id[new], ann))
    for pid, ann in annotations.items():  # none yet (migrated from schema 1), or shorter, as kept before
        if pid in by_id and ann.snippet != (snippet := snippet_of(by_id[pid].text)):
            change.sets.setdefault(pid, {})["snippet"] = snippet
    if orphans:
        messages.append(orphans_message(orphans, papers))
    if searched is not None and not any(event["action"] == REATTACH for event in change.events):
        remember_nothing_found(searched)
    return (change if change.sets or change.renames else None), messages


def reattached_message(paper: Paper, ann: Annotation) -> str:
    """Names the paper as the list shows it: its number and title (the user's own, carried over, or the paper's)."""
    title = cut_label(strip_control(title_of(paper, ann)))
    return f"re-attached the annotations of #{paper.index} {quoted(title)} (its text changed; now id {paper.id})"


def orphans_message(count: int, papers: PaperList) -> str:
    return f"{count} annotated paper(s) are not in {papers.name}; kept under missing papers"


def carried(ann: Annotation) -> dict[str, Any]:
    """What a re-attachment carries over to another record: everything the user set, and when."""
    fields = ("starred", "status", "note", "title", "read_at", "created", "updated")
    return {name: getattr(ann, name) for name in fields} | {"tags": list(ann.tags)}
