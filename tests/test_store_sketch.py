"""Schema 4: a record keeps its abstract's opening and a sketch of its other words, not the abstract's first 2,000
characters. The database of many read papers is small; re-attachment still follows an edited abstract and never
moves a mark onto another paper sharing its opening; a schema 3 database is migrated keeping every annotation."""

from __future__ import annotations

import json
import random
from datetime import datetime

import pytest

from readlist.core.papers.reader import parse_text
from readlist.core.store.annotation import OPENING_CHARS, sketch_of, snippet_of
from readlist.core.store.store import Store

BOILERPLATE = (
    "Large language models are increasingly deployed as autonomous agents that plan, call tools and act in "
    "open environments, which raises new questions about their reliability. "
)
ENDINGS = [
    "We measure how often agents recover from failed tool calls across {n} benchmark suites and report recovery rates.",
    "Our curriculum teaches planning with {n} synthetic tasks, improving success on held-out household chores.",
    "We propose a verifier that rejects unsafe actions before execution, cutting harmful outcomes in {n} audits.",
    "A survey of {n} deployed systems shows that logging and rollback matter more than model scale for safety.",
    "We release a simulator of {n} websites where agents must book travel, compare prices and handle refunds.",
]


VOCABULARY = (
    "latency memory robustness fairness calibration sparsity distillation retrieval grounding hallucination "
    "privacy watermark throughput quantization pruning routing caching batching streaming scheduling "
    "negotiation translation summarization captioning segmentation tracking forecasting imputation"
).split()


def abstract(n: int) -> str:
    """Thirty abstracts opening alike, six of them sharing a second sentence too, each with words of its own."""
    ending = ENDINGS[n % len(ENDINGS)].format(n=n + 3)
    own = [word + "ab"[n % 2] + chr(97 + n // 2) for word in random.Random(n).sample(VOCABULARY, 8)]  # its own
    return f"{BOILERPLATE}{ending} We also study {', '.join(own)} in this setting."


def listed(texts: list[str]):
    return parse_text("\n\n".join(texts))


def test_a_read_paper_keeps_its_opening_and_a_sketch_so_the_database_stays_small(tmp_path):
    long_text = " ".join(f"Sentence {n} of a long abstract about sparse attention and pruning." for n in range(40))
    papers = listed([long_text + f" Paper {n}." for n in range(50)])
    db = tmp_path / "readlist.json"
    Store(db).update_many(papers.papers, status="read")
    docs = json.loads(db.read_text(encoding="utf-8"))["annotations"].values()
    assert all(len(doc["snippet"]) == OPENING_CHARS and doc["sketch"] for doc in docs)
    assert db.stat().st_size / len(papers.papers) < 300  # before: each kept 2,000 characters (over 2,100 bytes)


def test_an_edited_abstract_is_followed_among_papers_sharing_its_opening_and_never_another(tmp_path):
    texts = [abstract(n) for n in range(30)]
    before = listed(texts)
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.set_status(before.papers[5], "read")
    store.set_status(before.papers[12], "reading")
    edited = list(texts)
    edited[5] = texts[5].replace("recover from", "recover quickly from")  # a word added
    edited[12] = texts[12].rsplit(" We also", 1)[0] + " We also study them."  # cut short
    after = listed(edited)
    store = Store(db)
    messages = store.reconcile(after)
    assert len([m for m in messages if m.startswith("re-attached")]) == 2
    assert store.get(after.papers[5].id).status == "read" and store.get(after.papers[12].id).status == "reading"
    assert [paper.index for paper in after.papers if not store.get(paper.id).is_default] == [6, 13]
    gone = listed([text for n, text in enumerate(texts) if n not in (5, 12)])  # both papers left the list
    store = Store(db)
    store.reconcile(gone)
    assert all(store.get(paper.id).is_default for paper in gone.papers)  # nothing moved onto a paper alike
    assert sorted(ann.status for ann in store.orphans()) == ["read", "reading"]


@pytest.mark.parametrize("shared_chars", [OPENING_CHARS, 300])
def test_a_read_mark_stays_missing_when_a_paper_opening_alike_takes_its_place(tmp_path, shared_chars):
    words = "agents plan tools act environments reliability deployment safety evaluation measure benchmark".split()
    opening = " ".join(words[n % len(words)] + str(n) for n in range(80))[:shared_chars]
    first = opening + " We find that translated data makes instruction following worse in low-resource languages."
    second = opening + " Our method distils a reward model from human rankings and improves win rates by eight points."
    db = tmp_path / "readlist.json"
    Store(db).set_status(listed([first]).papers[0], "read")
    store = Store(db)
    store.reconcile(listed([second]))
    assert store.get(listed([second]).papers[0].id).status == "unread"
    assert [ann.status for ann in store.orphans()] == ["read"]


def v3_file(tmp_path, texts: list[str]):
    """A database as schema 3 wrote it: each record only read, keeping its abstract's first 2,000 characters; their
    log entries in one packed run; the first also starred and noted."""
    papers = listed(texts).papers
    when = "2026-01-02T03:04:05Z"
    annotations = {
        str(n): {"id": paper.id, "status": "read", "updated": when, "read_at": when, "snippet": snippet_of(paper.text)}
        for n, paper in enumerate(papers, start=1)
    }
    annotations["1"] |= {"starred": True, "note": "keep this one", "created": when, "updated": "2026-01-03T00:00:00Z"}
    run = {"time": when, "action": "status", "before": {"status": "unread", "read_at": None}}
    run |= {"after": {"status": "read", "read_at": when}, "group": "a1b2c3d4e5f6", "papers": [p.id for p in papers]}
    data = {"meta": {"1": {"schema_version": 3}}, "annotations": annotations, "events": {"1": run}}
    db = tmp_path / "readlist.json"
    db.write_text(json.dumps(data), encoding="utf-8")
    return db, papers


def test_a_schema_3_database_is_migrated_to_openings_and_sketches_keeping_every_annotation(tmp_path):
    texts = [abstract(n) for n in range(12)]
    db, papers = v3_file(tmp_path, texts)
    written = db.read_bytes()
    store = Store(db)
    assert store.notices == []
    (backup,) = tmp_path.glob("readlist.json.bak-*-schema3")
    assert backup.read_bytes() == written
    on_disk = json.loads(db.read_text(encoding="utf-8"))
    assert on_disk["meta"]["1"]["schema_version"] == 4  # before: left at 3, every snippet whole
    for paper in papers:
        ann = store.get(paper.id)
        assert (ann.status, ann.read_at) == ("read", "2026-01-02T03:04:05Z")
        whole = snippet_of(paper.text)
        kept = (whole, "") if paper is papers[0] else (whole[:OPENING_CHARS], sketch_of(whole))  # starred: whole
        assert (ann.snippet, ann.sketch) == kept
    assert store.get(papers[0].id).starred and store.get(papers[0].id).note == "keep this one"
    assert len(store.events()) == 12 and store.events()[0].action == "status"
    edited = list(texts)
    edited[0] = texts[0].replace("recover from", "recover quickly from")
    store = Store(db)
    store.reconcile(listed(edited))  # followed with the migrated key
    assert store.get(listed(edited).papers[0].id).note == "keep this one"
    assert store.undo() is not None and all(Store(db).get(p.id).status == "unread" for p in papers[1:])  # the run


def test_a_newer_readlists_database_is_refused_untouched(tmp_path):
    db = tmp_path / "readlist.json"
    raw = json.dumps({"meta": {"1": {"schema_version": 5}}, "annotations": {}, "events": {}}).encode()
    db.write_bytes(raw)
    store = Store(db)
    assert "newer readlist (schema 5" in store.blocked
    assert db.read_bytes() == raw and list(tmp_path.glob("readlist.json*")) == [db]


def test_a_read_date_left_out_as_the_change_time_reads_back_and_survives_later_changes(tmp_path):
    papers = listed([abstract(n) for n in range(3)]).papers
    times = iter(f"2026-02-0{day}T10:00:00Z" for day in range(1, 9))
    db = tmp_path / "readlist.json"
    store = Store(db, now=lambda: datetime.fromisoformat(next(times)))
    store.update_many(papers, status="read")
    docs = json.loads(db.read_text(encoding="utf-8"))["annotations"].values()
    assert not any("read_at" in doc for doc in docs)  # it is when they were changed
    store.toggle_star(papers[0])  # a later change: the read date stays the first
    assert Store(db).get(papers[0].id).read_at == "2026-02-01T10:00:00Z"
    assert Store(db).get(papers[0].id).updated > "2026-02-01T10:00:00Z"
    assert all(Store(db).get(paper.id).read_at == "2026-02-01T10:00:00Z" for paper in papers)


def test_a_schema_3_record_read_at_no_known_time_keeps_none(tmp_path):
    db, papers = v3_file(tmp_path, [abstract(n) for n in range(3)])
    data = json.loads(db.read_text(encoding="utf-8"))
    del data["annotations"]["2"]["read_at"]  # schema 3 left out a read_at of None
    db.write_text(json.dumps(data), encoding="utf-8")
    assert Store(db).get(papers[1].id).read_at is None
    assert Store(db).get(papers[1].id).status == "read" and Store(db).get(papers[2].id).read_at is not None
