"""Citations: BibTeX and CSL-JSON exports with readable unique cite keys, the record's fields, whole titles, the
list's name as the venue when it names a conference, and round trips back through the readers."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readlist.cli import cli
from readlist.core.export.citation import list_venue
from readlist.core.export.formats import export, format_for
from readlist.core.papers.formats import load_papers
from readlist.core.papers.paper import Paper, Record
from readlist.core.store.annotation import Annotation as Note
from readlist.core.text.normalize import paper_id

FIXTURES = Path(__file__).parent / "fixtures"
FORMATS = {"text": "txt", "bibtex": "bib", "atom": "atom", "jsonl": "jsonl", "csv": "csv", "tsv": "tsv"}


def paper(text: str, index: int = 1, title: str | None = None, **record) -> Paper:
    return Paper(id=paper_id(text), index=index, text=text, given_title=title, record=Record(**record) or None)


def entries(text: str, decode: bool = False) -> list:
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()] if decode else None)
    assert library.failed_blocks == []
    return library.entries


def bib_keys(papers, notes=None, name=None) -> list[str]:
    return [entry.key for entry in entries(export(papers, notes or {}, "bibtex", name))]


def test_cite_keys_are_first_author_year_and_first_word():
    papers = load_papers(FIXTURES / "arxiv-3.bib").papers
    assert bib_keys(papers) == ["doe2022meta", "muller2023theoretical", "roe2023agent"]  # Müller folded to ASCII
    assert [item["id"] for item in json.loads(export(papers, {}, "csl-json"))] == bib_keys(papers)


def test_cite_keys_fall_back_without_author_year_or_a_latin_word():
    papers = [
        paper("We study graphs.", 1, "The Graph of Things", authors=("Jane Doe",)),  # no year
        paper("We study sets.", 2, "On Sets", year=2021),  # no author
        paper("Nothing else.", 3, "The A Of"),  # only stopwords: the id
        paper("中文摘要。", 4, "图神经网络", authors=("张三",), year=2024),  # no Latin letter in the name or title
        paper("Van der Berg studies.", 5, "Über Façades", authors=("Jan van der Berg", "Ann Roe"), year=2020),
    ]
    assert bib_keys(papers) == [
        "doegraph",
        "paper2021sets",
        f"paper{papers[2].id}",
        f"paper2024{papers[3].id}",
        "berg2020uber",
    ]


def test_cite_keys_are_unique_and_the_same_on_every_run():
    papers = [paper(f"Abstract number {n}.", n, "Graph Nets", authors=("Jane Doe",), year=2023) for n in range(1, 30)]
    keys = bib_keys(papers)
    assert keys[:4] == ["doe2023graph", "doe2023grapha", "doe2023graphb", "doe2023graphc"]
    assert keys[27:] == ["doe2023graphaa", "doe2023graphab"]
    assert len(set(keys)) == len(keys) and bib_keys(papers) == keys


def test_a_venue_makes_a_conference_paper_or_a_journal_article():
    papers = [
        paper("A.", 1, "A", venue="ICML 2023", year=2023),
        paper("B.", 2, "B", venue="Proceedings of the AAAI Conference on Artificial Intelligence"),
        paper("C.", 3, "C", venue="Journal of Machine Learning Research"),
        paper("D.", 4, "D", venue="CoRR", arxiv_id="2101.00001"),  # a preprint server is no venue
        paper("E.", 5, "E"),
    ]
    found = entries(export(papers, {}, "bibtex"))
    assert [entry.entry_type for entry in found] == ["inproceedings", "inproceedings", "article", "misc", "misc"]
    assert found[0]["booktitle"] == "ICML 2023" and found[2]["journal"] == "Journal of Machine Learning Research"
    assert "journal" not in found[3].fields_dict and "booktitle" not in found[3].fields_dict
    types = [item["type"] for item in json.loads(export(papers, {}, "csl-json"))]
    assert types == ["paper-conference", "paper-conference", "article-journal", "article", "article"]


@pytest.mark.parametrize(
    "name, venue",
    [
        ("ICML 2025 论文列表", ("ICML", 2025)),
        ("ICML 2025", ("ICML", 2025)),
        ("Accepted papers of NeurIPS 2024", ("NeurIPS", 2024)),
        ("Conference on Robot Learning 2023 papers", ("Conference on Robot Learning", 2023)),
        ("My reading list 2024", None),
        ("PoisonBench 2024", None),
        ("arXiv cs.LG/cs.AI/cs.CL abstracts sample (from hdShang/arxiv-daily)", None),
        ("icml2025.txt", None),
        ("ICML", None),
    ],
)
def test_a_list_name_naming_a_conference_and_year(name, venue):
    assert list_venue(name) == venue


def test_the_lists_conference_is_the_venue_of_papers_without_one():
    papers = [paper("We study graphs.", 1, "Graphs", year=2024), paper("We study sets.", 2, "Sets", venue="COLT")]
    first, second = entries(export(papers, {}, "bibtex", "ICML 2025 论文列表"))
    assert (first.entry_type, first["booktitle"], first["year"], first.key) == ("inproceedings", "ICML", "2025",
                                                                               "paper2025graphs")  # fmt: skip
    assert (second["booktitle"], "year" in second.fields_dict) == ("COLT", False)  # its own venue, its own year
    item = json.loads(export(papers, {}, "csl-json", "ICML 2025"))[0]
    assert item["container-title"] == "ICML" and item["issued"] == {"date-parts": [[2025]]}


def test_the_command_says_when_the_lists_name_is_the_venue(tmp_path):
    db = str(tmp_path / "db.json")
    result = CliRunner().invoke(cli, ["--db", db, "export", "--all", "--format", "bibtex"])  # the bundled ICML list
    assert result.exit_code == 0, result.output
    assert "readlist: 19 paper(s) without a venue cited as ICML, 2025, from the list's name\n" in result.stderr
    found = entries(result.stdout)
    assert len(found) == 19 and all(e.entry_type == "inproceedings" and e["booktitle"] == "ICML" for e in found)
    assert not any("…" in e["title"] for e in found)
    assert "PoisonBench" in found[4]["title"] and found[4].key == "paper2025poisonbench"


def test_titles_are_whole_escaped_and_their_capitals_kept(tmp_path):
    long = "A " + " ".join(["Very"] * 60) + " Long Title"
    tricky = "Q&A on 100% of x_1 with #1 ~tilde, GPT-4: BERT's iPhone"
    hard = "{Braces}, $math$ and a \\ backslash"  # which the library's decoder reads otherwise
    papers = [paper("One.", 1, long), paper("Two.", 2, tricky), paper("Three.", 3, hard)]
    raw = entries(export(papers, {}, "bibtex"))
    assert "{GPT-4}:" in raw[1]["title"] and "{BERT's}" in raw[1]["title"] and "{iPhone}" in raw[1]["title"]
    assert [entry["title"] for entry in entries(export(papers[:2], {}, "bibtex"), decode=True)] == [long, tricky]
    path = tmp_path / "back.bib"
    path.write_text(export(papers, {}, "bibtex"), encoding="utf-8")
    assert [p.title for p in load_papers(path).papers] == [long, tricky, papers[2].title]


def test_a_derived_title_cut_short_is_cited_whole_where_its_phrase_ends():
    text = ("We propose PoisonBench, a benchmark for evaluating the susceptibility of large language models to data "
            "poisoning during preference learning, across many models and attack types.")  # fmt: skip
    shown = paper(text).title
    assert shown.endswith("…")  # as the list shows it
    title = entries(export([paper(text)], {}, "bibtex"), decode=True)[0]["title"]
    assert title == json.loads(export([paper(text)], {}, "csl-json"))[0]["title"]
    assert not title.endswith(("…", " to", " of", ",")) and title.startswith(shown[:-1])
    assert title.endswith(
        "to data poisoning during preference learning, across many models and attack types"
    )  # before: "…to data"
    mine = Note(paper(text).id, title="PoisonBench…")  # the user's own title is theirs
    assert json.loads(export([paper(text)], {paper(text).id: mine}, "csl-json"))[0]["title"] == "PoisonBench…"


def test_bibtex_fields_parse_back_into_the_same_fields():
    first = paper(
        "We study $\\mathcal{O}(n)$ attention.",
        1,
        "Attention in Linear Time",
        authors=("Bernhard Schölkopf", "Jan van der Berg", "Martin King Jr.", "Barnes and Noble", "OpenAI"),
        year=2023,
        venue="ICML 2023",
        arxiv_id="2301.00001",
        doi="10.1000/x_y",
        url="https://example.org/a_b?c=1&d=2",
        categories=("cs.LG", "stat.ML"),
        keywords=("attention",),
    )
    note = Note(first.id, note="Read §3 and check it all.\nSecond line.", tags=("to-read",))
    (entry,) = entries(export([first], {first.id: note}, "bibtex"))
    fields = {key: field.value for key, field in entry.fields_dict.items()}
    assert fields.pop("abstract") == "We study $\\mathcal{O}(n)$ attention."  # as written, LaTeX and all
    assert fields.pop("author") == (
        "Schölkopf, Bernhard and van der Berg, Jan and King, Jr., Martin and {Barnes and Noble} and OpenAI"
    )  # family names first, as BibTeX reads them unambiguously; braces keep an "and" inside a name
    assert fields == {
        "title": "Attention in Linear Time",
        "booktitle": "ICML 2023",
        "year": "2023",
        "eprint": "2301.00001",
        "archivePrefix": "arXiv",
        "primaryClass": "cs.LG",
        "doi": "10.1000/x_y",
        "url": "https://example.org/a_b?c=1&d=2",
        "keywords": "attention, to-read",
        "annote": "Read §3 and check it all.\nSecond line.",
    }


def test_csl_json_items_have_the_documented_shape():
    papers = load_papers(FIXTURES / "arxiv-3.bib").papers
    note = Note(papers[1].id, note="Compare with stacking.", tags=("ensembles",))
    first, second, third = json.loads(export(papers, {papers[1].id: note}, "csl-json"))
    assert second == {
        "id": "muller2023theoretical",
        "citation-key": "muller2023theoretical",
        "type": "paper-conference",
        "title": papers[1].title,
        "author": [
            {"family": "Müller", "given": "Ana"},
            {"family": "Doe", "given": "Jane"},
            {"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"},
        ],
        "issued": {"date-parts": [[2023]]},
        "container-title": "International Conference on Machine Learning",
        "number": "arXiv:2305.15786",
        "archive": "arXiv",
        "URL": "https://arxiv.org/abs/2305.15786",  # no landing page given: its arXiv page
        "abstract": papers[1].plain,
        "keyword": "ensembles",
        "annote": "Compare with stacking.",
    }
    assert first["type"] == "article" and first["publisher"] == "arXiv"  # CoRR: a preprint
    assert first["DOI"] == "10.48550/arXiv.2210.12590" and first["URL"] == "https://arxiv.org/abs/2210.12590"
    assert "abstract" not in third  # a bare entry: nothing made up


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("out", ["bibtex", "json", "csv"])
def test_an_export_reads_back_with_the_same_ids_titles_and_authors(tmp_path, fmt, out):
    original = load_papers(FIXTURES / f"arxiv-3.{FORMATS[fmt]}")
    path = tmp_path / {"bibtex": "back.bib", "json": "back.json", "csv": "back.csv"}[out]
    path.write_text(export(original.papers, {}, out, original.name), encoding="utf-8")
    back = load_papers(path)
    assert back.format == out
    assert [p.id for p in back.papers] == [p.id for p in original.papers]
    assert [p.title for p in back.papers] == [p.title for p in original.papers]
    assert [p.authors for p in back.papers] == [p.authors for p in original.papers]
    assert [p.arxiv_id for p in back.papers] == [p.arxiv_id for p in original.papers]
    if out != "bibtex":  # BibTeX has no field for a PDF link or all the categories
        assert [p.record for p in back.papers] == [p.record for p in original.papers]


def test_export_chooses_csl_json_for_a_csl_json_file(tmp_path):
    assert (format_for("refs.csl.json"), format_for("REFS.CSL.JSON"), format_for("refs.json")) == (
        "csl-json", "csl-json", "json"
    )  # fmt: skip
    out = tmp_path / "refs.csl.json"
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "db.json"), "export", "--all", "-o", str(out)])
    assert result.exit_code == 0, result.output
    items = json.loads(out.read_text(encoding="utf-8"))
    assert len(items) == 19 and items[0]["type"] == "paper-conference" and items[0]["container-title"] == "ICML"


@pytest.mark.skipif(shutil.which("pandoc") is None, reason="pandoc is not installed")
@pytest.mark.parametrize("fmt, suffix", [("bibtex", ".bib"), ("csl-json", ".json")])
def test_pandoc_renders_a_reference_from_our_export(tmp_path, fmt, suffix):
    papers = load_papers(FIXTURES / "arxiv-3.bib").papers
    bibliography = tmp_path / f"refs{suffix}"
    bibliography.write_text(export(papers, {}, fmt), encoding="utf-8")
    document = tmp_path / "doc.md"
    document.write_text("As shown by @muller2023theoretical.\n", encoding="utf-8")
    rendered = subprocess.run(
        ["pandoc", "--citeproc", "--bibliography", str(bibliography), "-t", "plain", str(document)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Müller" in rendered and "2023" in rendered and "Theoretical Guarantees" in rendered


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(TEXT, st.none() | TEXT, st.lists(TEXT, max_size=3), st.none() | TEXT, st.none() | TEXT, TEXT),
        min_size=1,
        max_size=4,
    ),
    st.none() | TEXT,
)
def test_any_papers_give_bibtex_that_parses_and_csl_json_with_unique_keys(rows, list_name):
    papers, notes = [], {}
    for n, (text, title, authors, venue, url, note) in enumerate(rows, 1):
        record = Record(authors=tuple(a for a in authors if a.strip()), venue=venue or None, url=url or None, year=n)
        papers.append(Paper(id=f"{n:012x}", index=n, text=text, given_title=title or None, record=record or None))
        notes[papers[-1].id] = Note(papers[-1].id, note=note, tags=(note,))
    found = entries(export(papers, notes, "bibtex", list_name))
    assert len(found) == len(papers) and len({entry.key for entry in found}) == len(papers)
    assert all(re.fullmatch(r"[a-z0-9]+", entry.key) for entry in found)
    items = json.loads(export(papers, notes, "csl-json", list_name))
    assert [item["id"] for item in items] == [entry.key for entry in found]


def test_an_author_of_a_word_and_punctuation_is_cited_as_written():
    """An author "0<NEL>," (a line break of another kind, then a comma) ended the export in a traceback."""
    odd = Paper(id="0" * 12, index=1, text="We study x.", record=Record(authors=("0\x85,", "Ada Lovelace")))
    found = entries(export([odd], {}, "bibtex"))
    assert len(found) == 1 and found[0].key.startswith("0")


def test_a_citation_links_the_paper_not_a_script_or_its_code():
    code = "We release code at https://github.com/x/y and study sparse attention."
    script = paper(code, 1, "Sparse Attention", url="javascript:alert(1)", arxiv_id="2301.00001")
    bare = paper(code, 2, "Sparse Attention Again")
    junk = paper("We study dense attention, see javascript:alert(1) here.", 3, "Dense", url="file:///etc/passwd")
    cited = json.loads(export([script, bare, junk], {}, "csl-json"))
    assert [item.get("URL") for item in cited] == ["https://arxiv.org/abs/2301.00001", "https://github.com/x/y", None]
    urls = re.findall(r"^  url = \{(.*)\},?$", export([script, bare, junk], {}, "bibtex"), re.M)
    assert urls == ["https://arxiv.org/abs/2301.00001", "https://github.com/x/y"]  # before: the file's, as written
