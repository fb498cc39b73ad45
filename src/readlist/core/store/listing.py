"""The annotations as a paper list shows them (`Listing`): each paper's under its id, also when its record is
one another readlist re-attached its annotations to.

A paper of the list given to `Store.reconcile` whose record another readlist re-attached to an id this list does
not hold (the paper file edited while this list was open, or another paper file holding the paper's next version;
see `followed_records`) is read and changed there: `get`, `all` and every change reach the record under its new
id, shown under the paper's id here, so nothing is split between the two ids.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .annotation import Annotation
from .changes import follow_reattach
from .records import Records


class Listing:
    """The annotations as the list last given to `Store.reconcile` (`paper_ids`, None before) shows them, worked
    out once per change of the records (search asks on every keystroke, the header after every result). Call
    while holding the store's lock."""

    def __init__(self, records: Records) -> None:
        self.paper_ids: frozenset[str] | None = None
        self.elsewhere: frozenset[str] = frozenset()  # papers other lists whose files exist hold: not missing
        self._data = records
        self._followed: tuple[int, frozenset[str] | None, dict[str, str]] | None = None  # (revision, list, followed)
        self._all: tuple[int, dict[str, Annotation]] | None = None  # (revision, every record)
        self._counts: _Counts | None = None

    def get(self, paper_id: str) -> Annotation:
        """The paper's annotation (an untouched one when it has none)."""
        record = self.followed().get(paper_id, paper_id)  # as `record_of`, a call less: the UI asks for every row
        doc = self._data.doc(record)
        if doc is None:
            return Annotation(paper_id)
        note = Annotation.from_stored(doc)
        return note if record == paper_id else replace(note, id=paper_id)

    def get_many(self, paper_ids: Sequence[str]) -> list[Annotation]:
        """`get` of each paper, in order (the rows of a whole list: 100,000 at once)."""
        followed, read = self.followed(), Annotation.from_stored
        records = [followed.get(pid, pid) for pid in paper_ids] if followed else paper_ids
        docs = self._data.docs_of(records)
        notes = [Annotation(pid) if doc is None else read(doc) for pid, doc in zip(paper_ids, docs, strict=True)]
        for n, (pid, record) in enumerate(zip(paper_ids, records, strict=True) if followed else ()):
            if record != pid and docs[n] is not None:  # shown under the paper's id, as `get` does
                notes[n] = replace(notes[n], id=pid)
        return notes

    def all(self) -> dict[str, Annotation]:
        """Every annotation by paper id (a record followed from a paper of the list under that paper's id)."""
        records = self.records()
        for pid, record in self.followed().items():
            records[pid] = replace(records.pop(record), id=pid)
        return records

    def worded(self) -> dict[str, Annotation]:
        """The annotations holding words of the user's (a note, tags, a title of their own) by paper id, as `all`
        gives them: the documents of the others, a mark alone (a whole list marked read), are passed over, never
        made into annotations (100,000 of them made in 0.2 s, held in 23 MB)."""
        shown = self.shown_as()
        worded = {}
        for doc in self._data.doc_values():
            if doc.get("note") or doc.get("tags") or doc.get("title") is not None:
                note = Annotation.from_stored(doc)
                pid = shown.get(note.id, note.id)
                worded[pid] = note if pid == note.id else replace(note, id=pid)
        return worded

    def records(self) -> dict[str, Annotation]:
        """Every record by its own id: read from the documents once, then again only for the records changed
        since (after a star, one of 100,000 rather than all: 0.55 s of CPU)."""
        data, cached = self._data, self._all
        if cached is None or cached[0] < data.loaded:
            cached = (data.revision, {pid: Annotation.from_stored(doc) for pid, doc in data.docs().items()})
        elif cached[0] != data.revision:
            for pid, revision in data.touched.items():
                if revision > cached[0]:
                    doc = data.doc(pid)
                    if doc is None:
                        cached[1].pop(pid, None)
                    else:
                        cached[1][pid] = Annotation.from_stored(doc)
            cached = (data.revision, cached[1])
        self._all = cached
        return dict(cached[1])

    def counts(self, paper_ids: Container[str]) -> tuple[int, int, int]:
        """(read, reading, starred) over the annotations of these papers, read straight from the documents: all of
        them once, then only those changed since (the header asks after every change)."""
        data, shown, cached = self._data, self.shown_as(), self._counts  # a followed record counts as its paper
        if cached is None or cached.papers is not paper_ids or cached.revision < data.loaded or cached.shown != shown:
            cached = self._counts = _Counts(data.revision, paper_ids, shown)
            for doc in data.doc_values():
                cached.add(doc.get("id"), doc)
        elif cached.revision != data.revision:
            for pid, revision in data.touched.items():
                if revision > cached.revision:
                    cached.remove(pid)
                    cached.add(pid, data.doc(pid))
            cached.revision = data.revision
        return cached.totals[0], cached.totals[1], cached.totals[2]

    def orphans(self) -> list[Annotation]:
        """Annotations (with something set) of papers not in the list, nor in another list whose file exists."""
        if self.paper_ids is None:
            return []
        shown, elsewhere = self.paper_ids, self.elsewhere
        return [
            ann for pid, ann in self.all().items() if pid not in shown and pid not in elsewhere and not ann.is_default
        ]

    def followed(self) -> dict[str, str]:
        """Papers of the list whose record another readlist re-attached to an id the list does not hold: paper
        id -> the record's id."""
        revision, paper_ids = self._data.revision, self.paper_ids
        cached = self._followed
        if cached is None or cached[0] != revision or cached[1] is not paper_ids:
            followed = {}
            if paper_ids is not None:
                followed = followed_records(paper_ids, self._data.doc, self._data.reattach_docs())
            cached = self._followed = (revision, paper_ids, followed)
        return cached[2]

    def record_of(self, paper_id: str) -> str:
        """The id of the record holding the paper's annotations."""
        return self.followed().get(paper_id, paper_id)

    def shown_as(self) -> dict[str, str]:
        """Records shown under another id: record id -> the paper of the list whose annotations it holds."""
        return {record: pid for pid, record in self.followed().items()}

    def ours(self, papers: Container[str]) -> Container[str]:
        """The ids whose changes are changes to these papers: theirs, and the records followed for them."""
        shown = self.shown_as()
        if not shown:
            return papers
        return _Either(papers, {record for record, pid in shown.items() if pid in papers})


def followed_records(
    paper_ids: Container[str], record_of: Callable[[str], dict | None], reattachments: Iterable[Mapping[str, Any]]
) -> dict[str, str]:
    """Papers of a list whose record a re-attachment (`reattachments`: log documents, oldest first) moved to an
    id the list does not hold, which has a record: their id -> that record's. Their own id holds no record, or
    an empty one. So a window still showing a paper file's earlier version, after another readlist re-attached
    the annotations to the edited one, reads and changes them there; and a list holding a paper's earlier
    version shows the annotations another paper file holds (see `held_elsewhere`)."""
    renames: dict[str, str] = {}
    for doc in reversed(list(reattachments)):
        follow_reattach(renames, doc.get("before", {}).get("id"), doc.get("after", {}).get("id"))
    followed: dict[str, str] = {}
    for old, new in renames.items():
        if old == new or old not in paper_ids or new in paper_ids or record_of(new) is None:
            continue
        own = record_of(old)
        if own is None or Annotation.from_doc(own).is_default:
            followed[old] = new
    records = Counter(followed.values())
    return {old: new for old, new in followed.items() if records[new] == 1}  # never one record for two papers


class _Either:
    """The ids in either of two collections."""

    def __init__(self, first: Container[str], second: Container[str]) -> None:
        self.first, self.second = first, second

    def __contains__(self, item: object) -> bool:
        return item in self.first or item in self.second


class _Counts:
    """What `Listing.counts` counted: each record's part of the totals, so that a changed record is counted again."""

    def __init__(self, revision: int, papers: Container[str], shown: dict[str, str]) -> None:
        self.revision, self.papers, self.shown = revision, papers, shown
        self.parts: dict[str, tuple[int, int, int]] = {}
        self.totals = [0, 0, 0]

    def add(self, pid: Any, doc: Mapping[str, Any] | None) -> None:
        if doc is None or not (pid in self.papers or (pid in self.shown and self.shown[pid] in self.papers)):
            return
        status = doc.get("status")
        part = (int(status == "read"), int(status == "reading"), int(bool(doc.get("starred"))))
        if any(part):
            self.parts[pid] = part
            self._shift(part, 1)

    def remove(self, pid: str) -> None:
        part = self.parts.pop(pid, None)
        if part is not None:
            self._shift(part, -1)

    def _shift(self, part: tuple[int, int, int], sign: int) -> None:
        totals = self.totals
        totals[0] += sign * part[0]
        totals[1] += sign * part[1]
        totals[2] += sign * part[2]
