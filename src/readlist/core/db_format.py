"""The database file's layout (TinyDB JSON: table -> doc id -> document) and how a damaged one is recognised.

Tables: `meta` (one document holding `schema_version`), `annotations` (one document per touched paper)
and `events` (append-only change log). Anything that does not parse and validate is `DamagedFile`.
"""

from __future__ import annotations

import json
from typing import Any

from .annotation import STATUSES

SCHEMA_VERSION = 2
META, ANNOTATIONS, EVENTS = "meta", "annotations", "events"


class DamagedFile(Exception):
    """The database file cannot be used as it is; the message says why in a few words."""


class NewerSchema(DamagedFile):
    """Written by a newer readlist with a schema this version does not know."""


def empty_data() -> dict[str, dict]:
    return {META: {"1": {"schema_version": SCHEMA_VERSION}}, ANNOTATIONS: {}, EVENTS: {}}


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # one instance: ~2x faster per document


def encode(data: dict | list | str) -> bytes:
    return _ENCODER.encode(data).encode("utf-8")


def decode(raw: bytes) -> dict[str, dict]:
    """Parse and check the shape of a database file. Raises DamagedFile (or NewerSchema)."""
    if not raw.strip():
        raise DamagedFile("the file is empty")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DamagedFile(f"not UTF-8 at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise DamagedFile(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(data, dict):
        raise DamagedFile(f"JSON of the wrong shape (a {type(data).__name__}, not an object of tables)")
    for name, table in data.items():
        if not isinstance(table, dict):
            raise DamagedFile(f"JSON of the wrong shape (table {name!r} is not an object)")
        for doc_id, doc in table.items():
            if not doc_id.isdigit() or not isinstance(doc, dict):
                raise DamagedFile(f"JSON of the wrong shape (table {name!r} has a bad document {doc_id!r})")
    version = schema_version(data)
    if version > SCHEMA_VERSION:
        raise NewerSchema(f"written by a newer readlist (schema {version}; this version reads up to {SCHEMA_VERSION})")
    if version == SCHEMA_VERSION:
        check_current(data)
    return data


def schema_version(data: dict[str, Any]) -> int:
    meta = data.get(META)
    if not meta:
        if any(table for name, table in data.items() if name != "_default"):
            raise DamagedFile("JSON of the wrong shape (no meta table with a schema_version)")
        return SCHEMA_VERSION  # an empty TinyDB file: nothing to migrate
    versions = [doc.get("schema_version") for doc in meta.values()]
    if len(versions) != 1 or type(versions[0]) is not int or versions[0] < 1:
        raise DamagedFile("JSON of the wrong shape (meta table without one integer schema_version)")
    return versions[0]


_TYPES = {
    "id": (str,),
    "starred": (bool,),
    "status": (str,),
    "tags": (list,),
    "note": (str,),
    "title": (str, type(None)),
    "created": (str, type(None)),
    "updated": (str, type(None)),
    "read_at": (str, type(None)),
    "snippet": (str,),
}


def check_current(data: dict[str, Any]) -> None:
    for doc_id, doc in data.get(ANNOTATIONS, {}).items():
        if not isinstance(doc.get("id"), str) or not doc["id"]:
            raise DamagedFile(f"JSON of the wrong shape (annotation {doc_id} has no paper id)")
        for key, types in _TYPES.items():
            if key in doc and not isinstance(doc[key], types):
                raise DamagedFile(f"JSON of the wrong shape (annotation {doc_id}: {key} is {type(doc[key]).__name__})")
        if doc.get("status", "unread") not in STATUSES:
            raise DamagedFile(f"JSON of the wrong shape (annotation {doc_id}: unknown status {doc['status']!r})")
        if not all(isinstance(tag, str) for tag in doc.get("tags", ())):
            raise DamagedFile(f"JSON of the wrong shape (annotation {doc_id}: a tag is not text)")
    for doc_id, doc in data.get(EVENTS, {}).items():
        if not isinstance(doc.get("before", {}), dict) or not isinstance(doc.get("after", {}), dict):
            raise DamagedFile(f"JSON of the wrong shape (event {doc_id} is malformed)")
