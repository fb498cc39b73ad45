"""What the user adds to a paper (star, status, tags, note, title) and the log of changes to it."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ..text.normalize import normalize_ws, quoted, strip_control
from .note_edits import EMPTY_NOTE, NOTE_EDIT

STATUSES = ("unread", "reading", "read")
EDITABLE = ("starred", "status", "tags", "note", "title")
SNIPPET_CHARS = 2000  # of the abstract a record's sketch is made from (see `reattach_key`): most abstracts whole
OPENING_CHARS = 72  # of the abstract a record keeps as it is (see `reattach_key`)
SKETCH_WORDS = 24  # words of the rest of the abstract sampled in a record's sketch


@dataclass(frozen=True)
class Annotation:
    """The user's annotations of one paper; `Annotation(id)` is an untouched paper."""

    id: str
    starred: bool = False
    status: str = "unread"
    tags: tuple[str, ...] = ()
    note: str = ""
    title: str | None = None
    created: str | None = None  # ISO-8601 UTC
    updated: str | None = None
    read_at: str | None = None
    snippet: str = ""  # the opening of the paper's abstract, and
    sketch: str = ""  # a fingerprint of the rest: what finds the paper again if its id changes (`reattach_key`)

    @property
    def is_default(self) -> bool:
        """Nothing set by the user."""
        return not self.starred and self.status == "unread" and not self.tags and not self.note and self.title is None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Annotation:
        return cls(
            id=doc["id"],
            starred=bool(doc.get("starred", False)),
            status=doc.get("status", "unread"),
            tags=tuple(doc.get("tags") or ()),
            note=doc.get("note") or "",
            title=doc.get("title"),
            created=doc["created"] if "created" in doc else doc.get("updated"),  # left out when the same (`packing`)
            updated=doc.get("updated"),
            read_at=doc["read_at"] if "read_at" in doc else _read_when_updated(doc),  # left out (`packing`)
            snippet=doc.get("snippet") or "",
            sketch=doc.get("sketch") or "",
        )

    @classmethod
    def from_stored(cls, doc: Mapping[str, Any]) -> Annotation:
        """`from_doc` of a document the store holds: checked as it was read (`format.check_current`) or made by a
        change, its fields have their types, so they are taken as they are and the annotation made without a call
        per field (100,000 in 0.09 s, not 0.2 s: a list of 100,000 papers reads every one)."""
        if not doc.keys() <= _STORED_FIELDS:  # a field of a newer readlist's: left out, as from_doc does
            return cls.from_doc(doc)
        values = _STORED_DEFAULTS | doc  # the fields in their order: the instance's dict shares its keys
        values["tags"] = tuple(values["tags"])
        if "created" not in doc:  # left out when the same as `updated` (`packing`)
            values["created"] = values["updated"]
        if "read_at" not in doc and values["status"] == "read":  # likewise (`packing`)
            values["read_at"] = values["updated"]
        note = object.__new__(cls)
        object.__setattr__(note, "id", doc["id"])  # a dict sharing its keys with other annotations' (a third of
        note.__dict__.update(values)  # the memory of one of its own), filled at once, not a call per field
        return note

    def to_doc(self) -> dict[str, Any]:
        doc = {f.name: getattr(self, f.name) for f in fields(self)}
        doc["tags"] = list(self.tags)
        return doc

    def label(self, width: int = 60) -> str:
        """A short human name for messages: the title override, else the start of the abstract, else the id."""
        text = self.title or self.snippet
        if not text:
            return self.id
        return cut_label(strip_control(text), width)


_STORED_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Annotation)}  # `id`: the document's, always
_STORED_FIELDS = frozenset(_STORED_DEFAULTS)


def _read_when_updated(doc: Mapping[str, Any]) -> str | None:
    """The `read_at` of a document written without it: a read paper's was its `updated` (`packing`), else none."""
    return doc.get("updated") if doc.get("status") == "read" else None


def cut_label(text: str, width: int = 60) -> str:
    """A name for a message, at most `width` characters."""
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


@dataclass(frozen=True)
class Event:
    """One entry of the change log. Changes made together share a `group` and undo as one step."""

    time: str
    paper: str
    action: str
    before: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)
    group: str = ""
    undoes: str | None = None  # for action "undo": the group it reverted
    papers_file: str | None = None  # for action "reattach": the paper file (its full path) the new id is in
    note_edit: dict = field(default_factory=dict)  # how the note changed, when it did (see note_edits)

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Event:
        return cls(
            time=doc.get("time", ""),
            paper=doc.get("paper", ""),
            action=doc.get("action", ""),
            before=dict(doc.get("before") or {}),
            after=dict(doc.get("after") or {}),
            group=doc.get("group", ""),
            undoes=doc.get("undoes"),
            papers_file=doc.get("papers_file") if isinstance(doc.get("papers_file"), str) else None,
            note_edit=dict(doc.get(NOTE_EDIT) or {}),
        )

    @property
    def changed(self) -> list[str]:
        """The fields this entry set: those in `after`, and the note when it is kept as a note edit."""
        return [*self.after, "note"] if self.note_edit and "note" not in self.after else list(self.after)

    def to_doc(self) -> dict[str, Any]:
        """The log document of this entry (`undoes`, `papers_file` and the note edit only when set)."""
        doc = {"time": self.time, "paper": self.paper, "action": self.action}
        doc |= {"before": dict(self.before), "after": dict(self.after), "group": self.group}
        if self.undoes is not None:
            doc["undoes"] = self.undoes
        if self.papers_file is not None:
            doc["papers_file"] = self.papers_file
        if self.note_edit:
            doc[NOTE_EDIT] = dict(self.note_edit)
        return doc

    def describe(self) -> str:
        """What changed, in a few words: 'status reading → read', 'star', 'tags +ml -rl'."""
        if self.action == "status":
            return f"status {self.before.get('status', 'unread')} → {self.after.get('status', 'unread')}"
        if self.action == "tags":
            old, new = self.before.get("tags") or [], self.after.get("tags") or []
            diff = [f"+{t}" for t in new if t not in old] + [f"-{t}" for t in old if t not in new]
            return "tags " + (" ".join(diff) if diff else "reordered")
        if self.action == "title":
            title = self.after.get("title")
            if not title:
                return "title: back to the paper's own"
            return f"title → {quoted(cut_label(strip_control(title), 40))}"
        if self.action == "reattach":
            return f"re-attached from {self.before.get('id')} to {self.after.get('id')}"
        if self.action == "move":  # `readlist reattach`: annotations moved by hand from a missing paper
            cleared = Annotation(self.paper)
            moved_here = any(k in self.after and self.after[k] != getattr(cleared, k) for k in EDITABLE if k != "tags")
            moved_here = moved_here or self.note_edit.get("is", EMPTY_NOTE) != EMPTY_NOTE
            return "annotations moved here" if moved_here or self.after.get("tags") else "annotations moved away"
        if self.action == "update":
            return "changed " + ", ".join(k for k in self.changed if k in EDITABLE)
        return self.action


def normalize_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Stripped (inner whitespace collapsed), empty ones dropped, deduplicated ignoring case, order kept."""
    out: list[str] = []
    seen: set[str] = set()
    for tag in tags:
        tag = normalize_ws(strip_control(str(tag)))
        key = tag.casefold()
        if tag and key not in seen:
            seen.add(key)
            out.append(tag)
    return tuple(out)


def snippet_of(text: str, chars: int = SNIPPET_CHARS) -> str:
    """The abstract, normalised (its first `chars` characters), kept to find the paper again if its id changes."""
    return normalize_ws(strip_control(text[: 4 * chars]))[:chars]  # not all of a 5 MB paragraph


def only_status(note: Annotation | Mapping[str, Any]) -> bool:
    """Whether the user gave the paper nothing but a status (no star, tags, note or title of their own); of an
    annotation or its document (read without making an Annotation: every command asks it of every record)."""
    if isinstance(note, Annotation):
        return not note.starred and not note.tags and not note.note and note.title is None
    return not note.get("starred") and not note.get("tags") and not note.get("note") and note.get("title") is None


def reattach_key(text: str, note: Annotation | Mapping[str, Any]) -> dict[str, str]:
    """What a record with these annotations keeps of its paper's abstract to find the paper again if its id changes.
    A paper given a star, tags, a note or a title keeps its `snippet`, the abstract's first SNIPPET_CHARS characters
    (normalised), and no sketch. A paper only given a status (marking a 100,000-paper list read gives 100,000 of
    them) keeps the abstract's opening, its first OPENING_CHARS characters (the whole abstract when it is that
    short), and the `sketch` of the words after it (see `sketch_of`; "" when there are none): the opening alone
    cannot tell a paper from another that shares it, and would move a read mark onto the wrong paper when the list
    changes; the sketch tells them apart, in a twentieth of the bytes."""
    whole = snippet_of(text, SNIPPET_CHARS)
    if not only_status(note):
        return {"snippet": whole, "sketch": ""}
    return {"snippet": whole[:OPENING_CHARS], "sketch": sketch_of(whole)}


def sketch_of(snippet: str) -> str:
    """A compact fingerprint of the words of an abstract (normalised, see `snippet_of`) after its opening: how many
    distinct words of 4+ letters it has there, and a sample of them (the SKETCH_WORDS with the lowest CRC-32),
    each as 16 bits of its CRC-32; base64. "" when the abstract ends within its opening. `reattach` estimates from it
    how many of those words another text holds."""
    if len(snippet) <= OPENING_CHARS:
        return ""
    from .reattach import sketch_hashes

    count, sample = sketch_hashes(snippet, OPENING_CHARS, SKETCH_WORDS)
    raw = bytes([min(count, 255)]) + b"".join(value.to_bytes(2, "big") for value in sample)
    return base64.b64encode(raw).decode("ascii").rstrip("=")


def renewed_key(note: Annotation | Mapping[str, Any], text: str) -> dict[str, str] | None:
    """The `reattach_key` a record of the paper with this `text` should keep instead of its own, None when its own
    serves: one as long as wanted, or a whole snippet where a sketch would do (a record whose star was taken off
    keeps the snippet it had), is taken as it is without looking at the text again (`key_kept`)."""
    if not text or key_kept(note):
        return None
    wanted = reattach_key(text, note)
    if isinstance(note, Annotation):
        stored = (note.snippet, note.sketch)
    else:
        stored = (note.get("snippet") or "", note.get("sketch") or "")
    return None if stored == (wanted["snippet"], wanted["sketch"]) else wanted


def key_kept(note: Annotation | Mapping[str, Any]) -> bool:
    """Whether a record keeps its `reattach_key` whatever its paper's text: a whole snippet, or an opening and a
    sketch of a paper only given a status. It was taken from the paper's text, whose hash is the paper's id, so a
    command over 100,000 records reads a field, not abstracts."""
    if isinstance(note, Annotation):
        stored, sketch = note.snippet, note.sketch
    else:
        stored, sketch = note.get("snippet"), note.get("sketch")
    if not sketch:
        return len(stored or "") >= SNIPPET_CHARS
    return bool(stored) and only_status(note)


def own_title(paper: Any, text: str) -> str | None:
    """What to store as the user's title when they type `text`: None for nothing, or for the paper's
    own title (it needs no copy, and a copy would not follow a better derived title)."""
    title = " ".join(text.split())
    return None if title in ("", paper.title, editable_title(paper.title)) else title


def editable_title(title: str) -> str:
    """A title to start editing from: without the ellipsis that marks a derived title cut short."""
    return title[:-1].rstrip() if title.endswith("…") else title


def title_of(paper: Any, note: Any) -> str:
    """The user's title for the paper when they set one, else the file's or the derived one."""
    return getattr(note, "title", None) or paper.title


def missing_title(note: Annotation) -> str:
    """The title a paper no longer in the list had: the user's own, or one derived from the abstract kept
    with its annotations (its id when none was kept)."""
    from ..text.normalize import to_plain
    from ..titles.derive import derive_title

    return note.title or derive_title(to_plain(note.snippet)) or note.id
