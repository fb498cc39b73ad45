"""Papers whose text changed in the paper file are found again; the others are kept as orphans."""

from __future__ import annotations

from readlist.core.files.paths import bundled_papers
from readlist.core.papers.reader import parse_text, read_papers
from readlist.core.store.annotation import OPENING_CHARS, Annotation, sketch_of
from readlist.core.store.store import Store


def real_abstracts(n: int) -> list[str]:
    return [paper.text for paper in read_papers(bundled_papers()).papers[:n]]


def test_edited_abstract_is_reattached_and_removed_one_kept_as_orphan(tmp_path):
    texts = real_abstracts(5)
    before = parse_text("\n\n".join(texts))
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.update(before.papers[1], starred=True, note="my notes on it", tags=["keep"])
    store.set_status(before.papers[3], "read")
    store.set_status(before.papers[4], "reading")
    texts[1] = texts[1].replace("Large Language Models", "Large language models", 1) + " Code is available."
    removed = texts.pop(3)
    after = parse_text("\n\n".join(texts))
    moved = after.papers[1]
    assert moved.id != before.papers[1].id

    store = Store(db)
    messages = store.reconcile(after)
    assert len(messages) == 2
    assert messages[0].startswith("re-attached the annotations of") and moved.id in messages[0]
    assert messages[1] == "1 annotated paper(s) are not in <text>; kept under missing papers"
    ann = store.get(moved.id)
    assert (ann.starred, ann.note, ann.tags) == (True, "my notes on it", ("keep",))
    assert ann.snippet.startswith("Large language models")
    assert store.get(before.papers[1].id).is_default
    orphans = store.orphans()
    assert [o.id for o in orphans] == [before.papers[3].id]
    assert orphans[0].snippet == " ".join(removed.split())[:OPENING_CHARS]  # its opening, and a sketch of the rest
    assert orphans[0].sketch == sketch_of(" ".join(removed.split()))
    event = store.events()[0]
    assert (event.action, event.before, event.after) == ("reattach", {"id": before.papers[1].id}, {"id": moved.id})
    assert Store(db).get(moved.id).note == "my notes on it"  # persisted
    assert Store(db).reconcile(after) == ["1 annotated paper(s) are not in <text>; kept under missing papers"]


def test_ambiguous_or_distant_matches_are_not_reattached(tmp_path):
    template = "We evaluate method {} on the standard suite of benchmarks and report strong gains in accuracy overall."
    before = parse_text("\n\n".join(template.format(x) for x in ("alpha", "beta")))
    store = Store(tmp_path / "readlist.json")
    store.set_note(before.papers[0], "which one?")
    after = parse_text("\n\n".join(template.format(x) for x in ("gamma", "delta", "beta")))
    assert store.reconcile(after) == ["1 annotated paper(s) are not in <text>; kept under missing papers"]
    assert store.get(before.papers[0].id).note == "which one?"
    unrelated = parse_text("\n\n".join(real_abstracts(3)))
    store.reconcile(unrelated)
    assert {o.id for o in store.orphans()} == {before.papers[0].id}


OPENING = (
    "Autoprompting is the process of automatically selecting optimized prompts for language models, which has "
    "been gaining popularity with the rapid advancement of prompt engineering, driven by extensive research in "
    "the field of large language models (LLMs). This paper presents {} - a novel autoprompting method "
)
REFLECTIVE = OPENING.format("ReflectivePrompt") + (
    "based on evolutionary algorithms that employs reflective evolution for more precise search of prompts. "
    "Before crossover and elitist mutation, short-term and long-term reflection operations are performed."
)
DISTILL = OPENING.format("DistillPrompt") + (
    "that distils knowledge from task examples in several stages: generation, compression and aggregation. "
    "We evaluate it on text classification and generation tasks with the t-lite-instruct model."
)


def test_a_different_paper_opening_with_the_same_sentences_is_not_taken_for_it(tmp_path):
    store = Store(tmp_path / "readlist.json")
    before = parse_text(REFLECTIVE + "\n\n" + DISTILL)
    store.update(before.papers[0], starred=True, note="ReflectivePrompt: read the ablations")
    after = parse_text(DISTILL)  # the next version of the list no longer has it
    assert store.reconcile(after) == ["1 annotated paper(s) are not in <text>; kept under missing papers"]
    assert store.get(after.papers[0].id).is_default
    assert store.get(before.papers[0].id).note == "ReflectivePrompt: read the ablations"


def test_of_two_papers_opening_alike_the_one_edited_is_found_again(tmp_path):
    store = Store(tmp_path / "readlist.json")
    before = parse_text(REFLECTIVE + "\n\n" + DISTILL)
    store.set_note(before.papers[0], "ReflectivePrompt notes")
    after = parse_text(REFLECTIVE.replace("more precise search", "a more precise search") + "\n\n" + DISTILL)
    store.reconcile(after)
    assert store.get(after.papers[0].id).note == "ReflectivePrompt notes"
    assert store.get(after.papers[1].id).is_default


def test_a_short_snippet_of_an_earlier_version_is_renewed_while_its_paper_is_in_the_list(tmp_path):
    import json

    db = tmp_path / "readlist.json"
    both = parse_text(REFLECTIVE + "\n\n" + DISTILL)
    Store(db).update(both.papers[0], starred=True, note="ReflectivePrompt notes")
    data = json.loads(db.read_text(encoding="utf-8"))
    data["annotations"]["1"]["snippet"] = data["annotations"]["1"]["snippet"][:300]  # as kept before
    db.write_text(json.dumps(data), encoding="utf-8")
    Store(db).reconcile(both)  # opened once with the paper still there
    store = Store(db)
    assert store.reconcile(parse_text(DISTILL)) == ["1 annotated paper(s) are not in <text>; kept under missing papers"]
    assert store.get(both.papers[1].id).is_default


def test_an_abstract_cut_short_or_grown_is_found_again_also_from_an_older_short_snippet(tmp_path):
    import json

    db = tmp_path / "readlist.json"
    text = real_abstracts(1)[0]
    Store(db).set_note(parse_text(text).papers[0], "kept")
    cut = parse_text(text[: len(text) // 2].rsplit(" ", 1)[0] + ".").papers[0]
    Store(db).reconcile(parse_text(cut.text))
    assert Store(db).get(cut.id).note == "kept"
    data = json.loads(db.read_text(encoding="utf-8"))
    data["annotations"]["1"]["snippet"] = cut.text[:300]  # as a database of an earlier version keeps it
    db.write_text(json.dumps(data), encoding="utf-8")
    grown = parse_text(cut.text + " Our code and data are public.").papers[0]
    store = Store(db)
    store.reconcile(parse_text(grown.text))
    assert store.get(grown.id).note == "kept"


def test_undo_before_a_reattachment_follows_the_new_id(tmp_path):
    texts = real_abstracts(2)
    before = parse_text("\n\n".join(texts))
    store = Store(tmp_path / "readlist.json")
    store.set_note(before.papers[0], "first")
    store.toggle_star(before.papers[0])
    texts[0] += " Extended version."
    after = parse_text("\n\n".join(texts))
    store.reconcile(after)
    assert store.undo() == f"undid star on {store.get(after.papers[0].id).label()!r}"
    ann = store.get(after.papers[0].id)
    assert not ann.starred and ann.note == "first"


def test_lost_annotations_that_matched_nothing_are_not_searched_again_for_the_same_list(tmp_path, monkeypatch):
    import readlist.core.store.reconcile as reconcile_module

    texts = real_abstracts(4)
    db = tmp_path / "readlist.json"
    Store(db).set_note(parse_text("\n\n".join(texts)).papers[0], "kept")
    shorter = parse_text("\n\n".join(texts[1:]))
    assert Store(db).reconcile(shorter) == ["1 annotated paper(s) are not in <text>; kept under missing papers"]

    def no_search(*args, **kwargs):
        raise AssertionError("searched again")

    matcher = reconcile_module.Matcher
    monkeypatch.setattr(reconcile_module, "Matcher", no_search)
    assert Store(db).reconcile(shorter) == ["1 annotated paper(s) are not in <text>; kept under missing papers"]
    monkeypatch.setattr(reconcile_module, "Matcher", matcher)
    assert Store(db).reconcile(parse_text("\n\n".join(texts[1:3]))) == [  # another list: searched again
        "1 annotated paper(s) are not in <text>; kept under missing papers"
    ]


def emptied_record_under_the_edited_text(db):
    """Two versions of a list whose second paper's text changed; the new text's id has an emptied record
    (starred, then not). Returns the old and the new list and a store on `db`."""
    texts = real_abstracts(3)
    edited = texts[1].replace("Large Language Models", "Large language models", 1) + " Code is available."
    old = parse_text("\n\n".join(texts))
    new = parse_text("\n\n".join([texts[0], edited, texts[2]]))
    store = Store(db)
    store.toggle_star(new.papers[1])
    store.toggle_star(new.papers[1])
    return old, new, store


def test_a_paper_starred_then_unstarred_still_takes_the_annotations_of_its_earlier_text(tmp_path):
    db = tmp_path / "readlist.json"
    old, new, store = emptied_record_under_the_edited_text(db)
    store.update(old.papers[1], note="my notes", tags=["keep"], status="read")
    messages = Store(db).reconcile(new)
    assert messages and messages[0].startswith("re-attached")
    store = Store(db)
    moved = store.get(new.papers[1].id)
    assert (moved.note, moved.tags, moved.status) == ("my notes", ("keep",), "read") and moved.read_at
    assert store.get(old.papers[1].id).is_default and store.orphans() == []
    assert store.undo() is not None  # the newest change: the note, tags and status, followed to the new record
    assert store.get(new.papers[1].id).note == "" and store.get(old.papers[1].id).is_default


def test_undo_follows_a_paper_through_versions_of_the_file_and_back(tmp_path):
    texts = real_abstracts(4)
    fixed = [texts[0], texts[1].replace("Large Language Models", "Large language models", 1), *texts[2:]]
    first, second = parse_text("\n\n".join(texts)), parse_text("\n\n".join(fixed))
    assert first.papers[1].id != second.papers[1].id
    db = tmp_path / "readlist.json"
    Store(db).update(first.papers[1], tags=["keep"])
    Store(db).reconcile(second)  # the typo fixed: re-attached
    Store(db).reconcile(first)  # and the old file again: back
    store = Store(db)
    assert store.get(first.papers[1].id).tags == ("keep",)
    assert (
        store.undo(frozenset(p.id for p in first.papers))
        == f"undid tags +keep on {store.get(first.papers[1].id).label()!r}"
    )
    assert Store(db).get(first.papers[1].id).tags == ()


def test_switching_back_and_forth_keeps_re_attaching_a_paper_with_an_emptied_record(tmp_path):
    db = tmp_path / "readlist.json"
    old, new, store = emptied_record_under_the_edited_text(db)
    store.update(old.papers[1], note="my notes")
    for papers, paper in [(new, new.papers[1]), (old, old.papers[1]), (new, new.papers[1])]:
        Store(db).reconcile(papers)
        assert Store(db).get(paper.id).note == "my notes"


def test_a_whole_list_read_at_once_gives_what_each_paper_gives_also_one_followed_to_its_new_id(tmp_path):
    texts = real_abstracts(5)
    before = parse_text("\n\n".join(texts))
    db = tmp_path / "readlist.json"
    window = Store(db)
    window.reconcile(before)
    window.update(before.papers[1], starred=True, note="my notes on it", tags=["keep"])
    window.set_status(before.papers[3], "read")
    texts[1] = texts[1].replace("Large Language Models", "Large language models", 1) + " Code is available."
    after = parse_text("\n\n".join(texts))
    Store(db).reconcile(after)  # another readlist re-attaches the edited paper's annotations to its new id
    assert window.reload_if_changed()
    notes = window.get_many(before.papers)
    assert notes == [window.get(paper.id) for paper in before.papers]
    assert notes[1].id == before.papers[1].id and notes[1].note == "my notes on it"  # followed, under its own id
    assert notes[3].status == "read" and notes[0] == Annotation(before.papers[0].id)
    worded = {pid: note for pid, note in window.all().items() if note.note or note.tags or note.title is not None}
    assert window.worded() == worded == {before.papers[1].id: notes[1]}  # what a search reads: the followed note
    fresh = Store(db)
    fresh.reconcile(after)
    assert fresh.get_many(after.papers) == [fresh.get(paper.id) for paper in after.papers]
    assert fresh.get_many(after.papers)[1].note == "my notes on it"
