"""Re-attaching annotations after the paper file changed: the change that moves each annotated paper's
record to the new id of its paper (found by its snippet, see `reattach`), and what to tell the user; and
moving a missing paper's annotations by hand (`Store.move_annotations`, what `readlist reattach` does).
`Store` commits these changes under the file lock; nothing here reads or writes the database.

Each re-attachment is logged with the paper file it was made for (its full path, when the list was read
from a regular file). A record re-attached for another paper file that still exists is that file's paper:
it is not re-attached away from it (two lists holding two versions of one paper would otherwise take its
annotations back and forth on every command), and a list holding the paper's earlier version shows it
under that version (see `listing`), as a window still showing a paper file's earlier version
does after another readlist re-attached its annotations to the edited one.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..papers.paper import Paper, PaperList
from ..text.normalize import quoted, strip_control
from .annotation import EDITABLE, Annotation, Event, cut_label, reattach_key, renewed_key, snippet_of, title_of
from .changes import MOVE, REATTACH, Change, iso
from .merge import join_records
from .reattach import Matcher, found_nothing_before, remember_nothing_found, search_key


def reconcile_change(
    annotations: dict[str, Annotation],
    papers: PaperList,
    now: datetime,
    quiet_repeats: bool = False,
    held: Container[str] = frozenset(),
    followed: Mapping[str, str] | None = None,
    elsewhere: Container[str] = frozenset(),
) -> tuple[Change | None, list[str]]:
    """The change re-attaching annotations whose paper text changed (new id), None when there is none, and the
    messages saying what moved and how many stay orphans (kept, never deleted). With `quiet_repeats`, orphans
    a search found nothing for before, with the same papers, go unmentioned. Records in `held` (see
    `held_elsewhere`) stay where they are: no orphans when the list shows them, by `followed` (a paper of the
    list -> the record holding its annotations), under a paper of its own, which is then taken by no other.
    Papers held by another known list whose file exists (`elsewhere`) are not lost: never orphans, never moved."""
    by_id = papers.by_id
    followed = followed or {}
    messages: list[str] = []
    when, group = iso(now), uuid.uuid4().hex[:12]
    change = Change()
    lost = [ann for pid, ann in annotations.items() if pid not in by_id and pid not in elsewhere and not ann.is_default]
    kept = {ann.id for ann in lost if ann.id in held}
    shown = kept & set(followed.values())
    matcher, searched = None, None
    if lost:
        searched = search_key(papers.papers, annotations, [(_held(ann.id, kept), _key(ann)) for ann in lost])
        if found_nothing_before(searched):  # the same papers, the same lost annotations: no match
            if not quiet_repeats and len(lost) > len(shown):
                messages.append(orphans_message(len(lost) - len(shown), papers))
            lost, searched = [], None
        elif len(lost) > len(kept):
            taken = {pid for pid, record in followed.items() if record in kept}  # shown with its annotations
            untouched = [p for p in papers.papers if p.id not in taken and _untouched(annotations.get(p.id))]
            matcher = Matcher({p.id: snippet_of(p.text) for p in untouched})
    orphans = 0
    here = papers_file(papers)
    for ann in lost:
        new = None if matcher is None or ann.id in kept else matcher.find(ann.snippet, ann.sketch)
        if new is None:
            orphans += ann.id not in shown
            continue
        matcher.claim(new)
        if new in annotations:  # an emptied record of its own (starred, then not): filled, not renamed
            change.sets[new] = carried(ann) | reattach_key(by_id[new].text, ann)
            change.sets[ann.id] = carried(Annotation(ann.id))
        else:
            change.renames.append((ann.id, new))
            change.sets[new] = reattach_key(by_id[new].text, ann)
        event = {"time": when, "paper": new, "action": REATTACH, "before": {"id": ann.id}, "after": {"id": new}}
        change.events.append(event | {"group": group} | ({"papers_file": here} if here else {}))
        messages.append(reattached_message(by_id[new], ann))
    for pid, ann in annotations.items():  # none yet (migrated from schema 1), or no sketch, as kept before
        if pid in by_id and (key := renewed_key(ann, by_id[pid].text)) is not None:
            change.sets.setdefault(pid, {}).update(key)
    if orphans:
        messages.append(orphans_message(orphans, papers))
    if searched is not None and not any(event["action"] == REATTACH for event in change.events):
        remember_nothing_found(searched)
    return (change if change.sets or change.renames else None), messages


def _key(ann: Annotation) -> str:
    """What a lost record is searched for by: its snippet and sketch."""
    return f"{ann.snippet}\x1f{ann.sketch}" if ann.sketch else ann.snippet


def _untouched(ann: Annotation | None) -> bool:
    return ann is None or ann.is_default


def _held(pid: str, kept: Container[str]) -> str:
    """A lost record's id as a search key sees it: one left where it is counts apart, so that a search
    skipped while it was held is made again once it no longer is."""
    return f"{pid} held" if pid in kept else pid


def papers_file(papers: PaperList) -> str | None:
    """The full path of the regular file the list was read from; None for text, a pipe or a device."""
    return os.path.realpath(papers.path) if papers.stamp is not None else None


def held_elsewhere(reattachments: Iterable[Mapping[str, Any]], here: str | None) -> frozenset[str]:
    """Ids whose record the newest re-attachment to them made for a paper file other than `here` (this list's,
    None when it was not read from a file) that still exists. `reattachments`: their log documents, oldest first."""
    owners: dict[str, str] = {}
    for doc in reattachments:
        old, new, path = doc.get("before", {}).get("id"), doc.get("after", {}).get("id"), doc.get("papers_file")
        owners.pop(old, None)
        if isinstance(new, str) and isinstance(path, str):
            owners[new] = path
        elif isinstance(new, str):
            owners.pop(new, None)
    exists = {path: path != here and os.path.exists(path) for path in set(owners.values())}
    return frozenset(pid for pid, path in owners.items() if exists[path])


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


def moving(
    source: Annotation, target: Annotation, record: str, history: Callable[[], list[Event]]
) -> tuple[dict[str, Any], dict[str, Any], Annotation, bool]:
    """What moving a missing paper's annotations (`source`) onto a paper (`target`, held by `record`) sets: the
    paper's fields, the missing paper's (cleared), the annotation the paper ends with, and whether both notes
    were kept. When the paper has annotations of its own the two are joined by the merge's rules, reading the
    log (`history()`, oldest first)."""
    joined, conflict = source, False
    if not target.is_default:
        joined, conflict = join_records(replace(target, id=record), source, history())
    moved = {key: value for key, value in carried(joined).items() if key in EDITABLE}
    cleared = {key: value for key, value in carried(Annotation(source.id)).items() if key in EDITABLE}
    return moved, cleared, joined, conflict


def logged_as_move(change: Change | None, record: str, target: Annotation, joined: Annotation) -> Change | None:
    """The change moving annotations onto `record`, logged as a move on both papers; the read date goes along."""
    if change is None:
        return None
    if joined.status == "read" and joined.read_at not in (None, target.read_at):
        _read_then(change, record, target.read_at, joined.read_at)
    for event in change.events:
        event["action"] = MOVE
    return change


def _read_then(change: Change, record: str, before: str | None, read_at: str) -> None:
    """Annotations moved onto `record` were read at `read_at`, not now: so its record and log say (undo puts
    `before` back)."""
    if record not in change.sets:  # nothing else changed there: it keeps its own date
        return
    change.sets[record]["read_at"] = read_at
    for event in change.events:
        if event["paper"] == record:
            event["before"].setdefault("read_at", before)
            event["after"]["read_at"] = read_at


class Missing:
    """A paper known only by its id: one no longer in the list."""

    text = ""

    def __init__(self, paper_id: str) -> None:
        self.id = paper_id
