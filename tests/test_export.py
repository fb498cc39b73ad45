"""Export: Markdown notes, JSON, CSV round trips, BibTeX that parses, selection, atomic writes."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat

import bibtexparser
import pytest

from readlist.core.export.bibtex import _BIBTEX_ESCAPES, bibtex_url
from readlist.core.export.files import ExportExistsError, write_atomic
from readlist.core.export.formats import CSV_FIELDS, export, select
from readlist.core.papers.paper import Paper
from readlist.core.store.annotation import Annotation as Note

TRICKY_NOTE = 'Compare with "FastDiff", section 3.\nSecond line, with commas; and {braces}, 100% & $x_1$\n\n- a list'
PAPERS = [
    Paper(
        id="a1b2c3d4e5f6",
        index=1,
        text="We study $\\mathcal{O}(n)$ attention {with braces} & 50% less memory. Code: https://example.org/x_y.",
    ),
    Paper(id="0123456789ab", index=2, text="Diffusion models are slow at sampling. We propose FastDiff."),
    Paper(id="ffffeeeedddd", index=3, text="Graph neural networks struggle with long-range dependencies."),
]
NOTES = {
    "a1b2c3d4e5f6": Note(
        "a1b2c3d4e5f6", starred=True, status="read", tags=("attention", "efficiency"), note=TRICKY_NOTE
    ),
    "0123456789ab": Note("0123456789ab", tags=("diffusion",)),
    "ffffeeeedddd": Note("ffffeeeedddd", status="reading"),  # no star, note or tag
}


def test_default_selection_is_papers_with_a_star_note_or_tags_in_list_order():
    assert [p.index for p in select(PAPERS, NOTES)] == [1, 2]
    assert [p.index for p in select(PAPERS, NOTES, everything=True)] == [1, 2, 3]


def test_query_selects_by_text_note_or_tag_case_insensitively():
    assert [p.index for p in select(PAPERS, NOTES, "GRAPH neural")] == [3]
    assert [p.index for p in select(PAPERS, NOTES, "fastdiff")] == [1, 2]  # paper 1 by its note
    assert [p.index for p in select(PAPERS, NOTES, "diffusion")] == [2]
    assert select(PAPERS, NOTES, "no such words") == []
    assert select(PAPERS, NOTES, "diffusion xyzzyqq") == []  # a search lists paper 2 as a partial match


def test_write_atomic_writes_through_a_link_and_into_a_pipe(tmp_path):
    import threading

    real = tmp_path / "real.md"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_atomic(link, "new", force=True)
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    got = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_text(encoding="utf-8")))
    reader.start()
    write_atomic(pipe, "through the pipe")
    reader.join(timeout=10)
    assert got == ["through the pipe"] and pipe.is_fifo()


def test_write_atomic_writes_through_the_descriptor_a_path_names(tmp_path):
    kept = tmp_path / "kept.md"
    kept.write_text("KEEP\n")
    with open(kept, "a") as appending:
        for name in (f"/dev/fd/{appending.fileno()}", f"/proc/self/fd/{appending.fileno()}"):
            write_atomic(name, "more\n", force=True)
    assert kept.read_text() == "KEEP\nmore\nmore\n"  # appended where the descriptor writes, not replaced


def test_csv_round_trips_commas_quotes_and_newlines():
    text = export(PAPERS, NOTES, "csv")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert tuple(rows[0].keys()) == CSV_FIELDS
    assert len(rows) == 3
    first = rows[0]
    assert first["note"] == TRICKY_NOTE
    assert (first["id"], first["index"], first["status"], first["starred"]) == ("a1b2c3d4e5f6", "1", "read", "true")
    assert first["tags"].split("; ") == ["attention", "efficiency"]
    assert first["title"] == PAPERS[0].title
    assert rows[2]["note"] == "" and rows[2]["starred"] == "false"


def _split_tags(cell: str) -> list[str]:
    """The tags of a CSV tags cell, read as the README says: split at each ';' no backslash escapes, drop the
    space after it, then read `\\;` as ';' and `\\\\` as a backslash."""
    return [re.sub(r"\\(.)", r"\1", tag.removeprefix(" ")) for tag in re.findall(r"(?:\\.|[^;\\])+", cell)]


def test_csv_tags_split_back_into_the_tags_written():
    tags = ("a; b", "c;d;", "back\\slash", "ends\\", "\\;", "plain tag")
    paper = PAPERS[2]
    row = next(csv.DictReader(io.StringIO(export([paper], {paper.id: Note(paper.id, tags=tags)}, "csv"), newline="")))
    assert row["tags"].startswith("a\\; b; c\\;d\\;; back\\\\slash; ")
    assert _split_tags(row["tags"]) == list(tags)


def test_json_has_stable_fields_and_annotations():
    data = json.loads(export(PAPERS, NOTES, "json"))
    assert data["version"] == 1
    first = data["papers"][0]
    assert {
        "id",
        "index",
        "title",
        "text",
        "status",
        "starred",
        "tags",
        "note",
        "created",
        "updated",
        "read_at",
    } <= set(first)
    assert first["note"] == TRICKY_NOTE and first["tags"] == ["attention", "efficiency"] and first["starred"] is True
    assert first["urls"] == ["https://example.org/x_y"]
    assert [p["id"] for p in data["papers"]] == [p.id for p in PAPERS]


def test_json_of_unannotated_paper_has_defaults():
    paper = json.loads(export(PAPERS[1:2], {}, "json"))["papers"][0]
    assert (paper["status"], paper["starred"], paper["tags"], paper["note"]) == ("unread", False, [], "")
    assert paper["created"] is None


def _bibtex_unescape(value: str) -> str:
    reverse = {v: k for k, v in _BIBTEX_ESCAPES.items()}
    pattern = re.compile("|".join(re.escape(v) for v in sorted(reverse, key=len, reverse=True)))
    return pattern.sub(lambda m: reverse[m.group(0)], value)


def test_bibtex_parses_and_keeps_fields():
    library = bibtexparser.parse_string(export(PAPERS, NOTES, "bibtex"))
    assert library.failed_blocks == []
    assert [e.key for e in library.entries] == ["paperattention", "paperfastdiff", "papergraph"]
    assert all(e.entry_type == "misc" for e in library.entries)  # no venue: a preprint
    first = library.entries[0].fields_dict
    assert _bibtex_unescape(first["title"].value) == PAPERS[0].title
    assert first["abstract"].value == PAPERS[0].text  # as written: read back, it gives the paper's id
    assert _bibtex_unescape(first["annote"].value) == TRICKY_NOTE  # `note` would be printed in the bibliography
    assert first["keywords"].value == "attention, efficiency"
    assert first["url"].value == "https://example.org/x_y"  # verbatim: as it is
    assert "annote" not in library.entries[2].fields_dict and "keywords" not in library.entries[2].fields_dict


def test_bibtex_urls_are_written_as_they_are():
    url = "https://example.org/~me/a_b%7Ec?x=1&y=$2;z=@w#sec_3"
    paper = Paper(id="abababababab", index=1, text=f"Code at {url}.")
    library = bibtexparser.parse_string(export([paper], {}, "bibtex"))
    assert library.failed_blocks == [] and library.entries[0].fields_dict["url"].value == url
    assert bibtex_url("https://x.org/{a}\\b") == "https://x.org/%7Ba%7D%5Cb"  # nothing to unbalance the entry


def test_bibtex_keeps_a_tag_with_a_comma_as_one_keyword():
    paper = PAPERS[2]
    note = Note(paper.id, tags=("a,b", "vision, language", "rl"))
    library = bibtexparser.parse_string(export([paper], {paper.id: note}, "bibtex"))
    assert library.entries[0].fields_dict["keywords"].value.split(", ") == ["a b", "vision language", "rl"]


def test_bibtex_braces_stay_balanced_whatever_the_text():
    paper = Paper(id="abcabcabcabc", index=1, text="Unbalanced } braces { and \\ backslashes }}} in text.")
    out = export([paper], {paper.id: Note(paper.id, note="a } b {{ c \\")}, "bibtex")
    library = bibtexparser.parse_string(out)
    assert library.failed_blocks == [] and len(library.entries) == 1
    assert _bibtex_unescape(library.entries[0].fields_dict["annote"].value) == "a } b {{ c \\"
    assert _bibtex_unescape(library.entries[0].fields_dict["abstract"].value) == paper.text  # escaped: its braces


def test_markdown_has_one_section_per_paper_with_quote_and_note():
    out = export(PAPERS[:2], NOTES, "md")
    sections = out.split("\n## ")[1:]
    assert len(sections) == 2
    first = sections[0]
    assert first.startswith(PAPERS[0].title)
    assert "`a1b2c3d4e5f6`" in first and "read" in first and "`attention`" in first and "★" in first
    assert "> " + PAPERS[0].plain in first
    assert TRICKY_NOTE in first
    assert sections[1].startswith(PAPERS[1].title) and "`diffusion`" in sections[1]
    assert out.index(PAPERS[0].title) < out.index(PAPERS[1].title)


def test_a_title_set_by_the_user_is_used_everywhere():
    notes = {PAPERS[1].id: Note(PAPERS[1].id, title="FastDiff (my title)", starred=True)}
    for fmt in ("md", "json", "csv", "csl-json"):
        assert "FastDiff (my title)" in export(PAPERS[1:2], notes, fmt), fmt
    assert "title = {{FastDiff} (my title)}" in export(PAPERS[1:2], notes, "bibtex")  # its capitals kept


def test_unknown_format_is_an_error():
    with pytest.raises(ValueError, match="unknown export format"):
        export(PAPERS, NOTES, "docx")


def test_write_atomic_creates_and_refuses_to_overwrite(tmp_path):
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    target = tmp_path / "notes.csv"
    write_atomic(target, "a\r\nb\n")
    assert target.read_bytes() == b"a\r\nb\n"  # line endings as given
    with pytest.raises(ExportExistsError, match="--force"):
        write_atomic(target, "other")
    assert target.read_bytes() == b"a\r\nb\n"
    write_atomic(target, "new", force=True)
    assert target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["notes.csv"]  # no temp file left behind


def test_write_atomic_leaves_no_temp_file_on_failure(tmp_path, monkeypatch):
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    target = tmp_path / "out.md"
    target.write_text("old")

    def boom(*args):
        raise OSError("disk full")

    monkeypatch.setattr("readlist.core.export.formats.os.replace", boom)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "new", force=True)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.md"]


def test_terminal_escape_sequences_reach_no_export():
    osc, red, reset = "\x1b]0;pwned\x07", "\x1b[31m", "\x1b[0m"
    paper = Paper(id="abcdefabcdef", index=1, text=f"An {red}abstract{reset} with a bell\x07.\nhttps://x.org/{osc}")
    note = Note(paper.id, title=f"My {osc}title", tags=(f"{red}tag",), note=f"before {osc}after\n\tindented {red}red")
    for fmt in ("md", "json", "csv", "bibtex", "csl-json"):
        out = export([paper], {paper.id: note}, fmt)
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", out.replace("\r\n", "\n")), fmt
        assert "pwned" not in out and "[31m" not in out and "[0m" not in out, fmt
    data = json.loads(export([paper], {paper.id: note}, "json"))["papers"][0]
    assert data["note"] == "before after\n\tindented red"  # tabs and newlines kept
    assert (data["title"], data["tags"]) == ("My title", ["tag"])
    assert data["text"].startswith("An abstract with a bell.\n") and data["urls"] == ["https://x.org/"]
    row = next(csv.DictReader(io.StringIO(export([paper], {paper.id: note}, "csv"), newline="")))
    assert row["note"] == "before after\n\tindented red"


def test_markdown_notes_abstracts_and_titles_stay_inside_their_paper():
    papers = [
        Paper(id="aaaaaaaaaaaa", index=1, text="We add <short> and <think> tokens, R&D &amp; more."),
        Paper(id="bbbbbbbbbbbb", index=2, text="[ref]: https://example.org is not a link definition."),
    ]
    note = "# Heading\n```python\nan unclosed fence, and ```` four\n<div>"
    notes = {
        papers[0].id: Note(papers[0].id, note=note, title="A <b>bold</b> title", tags=("a`b",)),
        papers[1].id: Note(papers[1].id, note="plain", starred=True),
    }
    assert export(papers, notes, "md") == (
        "# Reading notes\n\n"
        "## A &lt;b>bold&lt;/b> title\n\n"
        "`aaaaaaaaaaaa` · #1 · unread · tags: ``a`b``\n\n"
        "> We add &lt;short> and &lt;think> tokens, R&D &amp;amp; more.\n\n"
        "### Heading\n```python\nan unclosed fence, and ```` four\n<div>\n```\n\n"  # closed, and a level down
        "## [ref]: https://example.org is not a link definition\n\n"
        "`bbbbbbbbbbbb` · #2 · unread · ★ starred\n\n"
        "> \\[ref]: https://example.org is not a link definition.\n\n"
        "plain\n"
    )


def test_csv_cells_that_look_like_formulas_are_text():
    paper = Paper(id="cccccccccccc", index=1, text="A paper.")
    risky = ["=1+1", "- strong baseline", "+49 30 1234", "@SUM(A1)", '=HYPERLINK("http://x.org","click")']
    for value in risky:
        note = Note(paper.id, note=value, title=value, tags=(value,))
        row = next(csv.DictReader(io.StringIO(export([paper], {paper.id: note}, "csv"), newline="")))
        assert (row["title"], row["tags"], row["note"]) == ("'" + value,) * 3
    row = next(csv.DictReader(io.StringIO(export([paper], {paper.id: Note(paper.id, note="\tcode")}, "csv"))))
    assert row["note"] == "'\tcode"
    note = Note(paper.id, note="a = b - c", title="Safe title")
    row = next(csv.DictReader(io.StringIO(export([paper], {paper.id: note}, "csv"), newline="")))
    assert (row["note"], row["title"]) == ("a = b - c", "Safe title")
    assert '"note": "=1+1"' in export([paper], {paper.id: Note(paper.id, note="=1+1")}, "json")  # CSV only


def test_bibtex_a_note_line_starting_with_at_stays_inside_its_entry():
    papers = PAPERS[:2]
    notes = {papers[0].id: Note(papers[0].id, note="totals:\n@SUM(1)\n  @misc{x, title={y}}")}
    library = bibtexparser.parse_string(export(papers, notes, "bibtex"))
    assert library.failed_blocks == [] and len(library.entries) == 2
    assert "@SUM(1)" in library.entries[0].fields_dict["annote"].value.replace("{@}", "@")


def test_markdown_headings_keep_a_trailing_hash():
    paper = Paper(id="dddddddddddd", index=1, text="A paper.")
    cases = [("Why C #", "## Why C \\#"), ("Ranked ##", "## Ranked \\##"), ("#", "## \\#"), ("C#", "## C#")]
    for title, shown in cases:
        text = export([paper], {paper.id: Note(paper.id, title=title)}, "md")
        assert shown + "\n" in text
    assert export([], {}, "md").startswith("# Reading notes\n")


def test_an_export_forced_over_a_file_keeps_that_files_permissions(tmp_path):
    kept = tmp_path / "notes.md"
    kept.write_text("old")
    kept.chmod(0o440)
    write_atomic(kept, "new", force=True)
    assert kept.read_text() == "new" and stat.S_IMODE(kept.stat().st_mode) == 0o440  # before: 0o644
    fresh = write_atomic(tmp_path / "fresh.md", "x")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600  # a new export holds notes: private, whatever the umask


def test_markdown_shows_authors_venue_year_and_links_and_the_note_as_markdown():
    from readlist.core.papers.paper import Record

    record = Record(
        authors=("Jane Doe", "Richard Roe"),
        year=2023,
        venue="ICML",
        arxiv_id="2305.15786",
        doi="10.1000/a(b)",
        pdf_url="https://example.org/paper.pdf",
    )
    paper = Paper(id="eeeeeeeeeeee", index=1, text="We study ensembles.", given_title="Ensembles", record=record)
    note = Note(paper.id, note="**Key idea**: stacking.\n\n- pros\n- cons\n\n## My summary\nShort.")
    out = export([paper], {paper.id: note}, "md")
    assert out == (
        "# Reading notes\n\n"
        "## Ensembles\n\n"
        "`eeeeeeeeeeee` · #1 · unread\n\n"
        "Jane Doe, Richard Roe · ICML 2023 · arXiv 2305.15786 · DOI 10.1000/a(b)  \n"
        "[PDF](<https://example.org/paper.pdf>) · [DOI](<https://doi.org/10.1000/a(b)>)"
        " · [arXiv abstract page](<https://arxiv.org/abs/2305.15786>)\n\n"
        "> We study ensembles.\n\n"
        "**Key idea**: stacking.\n\n- pros\n- cons\n\n#### My summary\nShort.\n"  # Markdown, a level below the paper
    )
