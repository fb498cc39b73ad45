"""Reading paper files in every format: the fixtures' fields, shared ids, choosing the reader, errors, fuzzing.

The fixtures in tests/fixtures/arxiv-3.* hold three papers of the shared arXiv sample (real titles, abstracts and
arXiv ids; the authors are placeholders), each written in one format's documented shape.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readlist.core.export.formats import JSON_VERSION, export
from readlist.core.papers.formats import FORMATS, choose, load_papers, parse
from readlist.core.papers.formats.readlist_json import READS_VERSION
from readlist.core.papers.identifiers import arxiv_category, arxiv_id, doi, record_id
from readlist.core.papers.reader import ReadError, read_papers
from readlist.core.search.cache import content_key
from readlist.core.text.normalize import paper_id

FIXTURES = Path(__file__).parent / "fixtures"
TITLES = [
    "Meta-Reinforcement Learning for Building Energy Management System",
    "Theoretical Guarantees of Learning Ensembling Strategies with Applications to Time Series Forecasting",
    "Agent-OM: Leveraging LLM Agents for Ontology Matching",
]
ARXIV = ["2210.12590", "2305.15786", "2312.00326"]
EXTENSIONS = {"text": ".txt", "bibtex": ".bib", "atom": ".atom", "jsonl": ".jsonl", "csv": ".csv", "tsv": ".tsv",
              "json": ".json"}  # fmt: skip


def fixture(fmt: str) -> Path:
    return FIXTURES / f"arxiv-3{EXTENSIONS[fmt]}"


def copy(tmp_path, fmt: str, name: str | None = None) -> Path:
    target = tmp_path / (name or fixture(fmt).name)
    shutil.copyfile(fixture(fmt), target)
    return target


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_every_format_gives_the_real_titles_and_chosen_by_extension(fmt):
    papers = load_papers(fixture(fmt))
    assert papers.format == fmt
    assert [paper.title for paper in papers.papers] == TITLES
    assert papers.duplicates == 0


@pytest.mark.parametrize("fmt", ["text", "atom", "jsonl", "csv", "tsv"])
def test_the_same_abstracts_have_the_same_ids_in_every_format(fmt):
    text = [paper.id for paper in read_papers(fixture("text")).papers]
    assert [paper.id for paper in load_papers(fixture(fmt)).papers] == text
    assert text[0] == paper_id(load_papers(fixture("bibtex")).papers[0].text)


def test_bibtex_fields_strings_crossref_names_and_a_record_without_abstract():
    first, second, bare = load_papers(fixture("bibtex")).papers
    assert first.authors == ("Jane Doe", "Richard Roe")
    assert (first.year, first.venue) == (2022, "CoRR")  # @string corr
    assert (first.arxiv_id, first.categories) == ("2210.12590", ("cs.AI",))
    assert first.doi == "10.48550/arXiv.2210.12590" and first.url == "https://arxiv.org/abs/2210.12590"
    assert first.keywords == ("reinforcement learning", "energy")
    assert second.authors == ("Ana Müller", "Jane Doe", "Jan van der Berg")  # M{\"u}ller, von part
    assert (second.venue, second.year) == ("International Conference on Machine Learning", 2023)  # crossref
    assert second.arxiv_id == "2305.15786"  # eprinttype = arxiv (biblatex)
    assert bare.text == "" and bare.doi == "10.48550/arXiv.2312.00326" and bare.pdf_url is None
    assert bare.id == record_id("", doi="10.48550/arXiv.2312.00326") != paper_id("10.48550/arXiv.2312.00326")


def test_atom_feed_fields_and_its_title_names_the_list():
    papers = load_papers(fixture("atom"))
    assert papers.name.startswith("ArXiv Query: search_query=&id_list=2210.12590")
    first, second, _ = papers.papers
    assert first.arxiv_id == "2210.12590"  # without the feed's v2
    assert first.url == "http://arxiv.org/abs/2210.12590v2" and first.pdf_url == "http://arxiv.org/pdf/2210.12590v2"
    assert first.categories == ("cs.AI", "cs.LG") and first.year == 2022
    assert first.authors == ("Jane Doe", "Richard Roe") and first.doi == "10.48550/arXiv.2210.12590"
    assert second.venue == "ICML 2023"  # arxiv:journal_ref


def test_jsonl_snapshot_fields():
    first, second, third = load_papers(fixture("jsonl")).papers
    assert first.authors == ("Jane Doe", "Richard Roe") and first.doi is None
    assert first.categories == ("cs.AI", "cs.LG") and first.year == 2022  # the first version's year, not updated
    assert second.authors == ("Ana Müller", "Jane Doe", "Jan van der Berg") and second.venue == "ICML 2023"
    assert third.arxiv_id == "2312.00326" and third.url is None  # nothing made up


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_csv_and_tsv_columns_in_any_case_and_unknown_ones_named_once(fmt):
    papers = load_papers(fixture(fmt))
    assert papers.notices == (f"{fixture(fmt)}: columns left out: 'Notes'",)
    first, second, third = papers.papers
    assert first.authors == ("Jane Doe", "Richard Roe") and third.authors == ("Richard Roe",)
    assert first.arxiv_id == "2210.12590" and first.doi == "10.48550/arXiv.2210.12590"  # arXiv:, https://doi.org/
    assert first.pdf_url == "https://arxiv.org/pdf/2210.12590" and second.venue == "ICML"


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_csv_lines_end_as_any_system_ends_them(tmp_path, ending):
    path = tmp_path / "papers.csv"
    path.write_bytes(f'Title,Abstract{ending}One,"We study A.{ending}Over two lines."{ending}Two,B.{ending}'.encode())
    papers = load_papers(path)
    assert [(p.title, p.text) for p in papers.papers] == [("One", "We study A. Over two lines."), ("Two", "B.")]


def test_text_sidecars_give_titles_arxiv_ids_and_categories():
    papers = load_papers(fixture("text"))
    assert papers.name == "arXiv sample: three papers" and papers.has_titles
    assert [paper.arxiv_id for paper in papers.papers] == ARXIV
    assert [paper.categories for paper in papers.papers] == [("cs.AI",), ("cs.LG",), ("cs.AI",)]  # from cs-AI
    assert [paper.title for paper in read_papers(fixture("text")).papers] != TITLES  # derived without them


def test_sidecars_by_id_by_arxiv_id_and_a_doi_and_what_they_cannot_use(tmp_path):
    path = copy(tmp_path, "text", "list.txt")
    ids = [paper.id for paper in read_papers(path).papers]
    (tmp_path / "list.ids.tsv").write_text(f"1\t{ARXIV[0]}\n{ids[1]}\thttps://doi.org/10.1145/abc\n3\tnot-an-id\n")
    (tmp_path / "list.titles.tsv").write_text(f"{ARXIV[0]}\tFirst\n10.1145/ABC\tSecond\nffffffffffff\tNobody's\n")
    papers = load_papers(path)
    assert [paper.given_title for paper in papers.papers] == ["First", "Second", None]
    assert papers.papers[1].doi == "10.1145/abc"
    assert papers.notices == (
        f"{tmp_path / 'list.ids.tsv'}: 1 identifier(s) are neither an arXiv id nor a DOI; left out",
        f"{tmp_path / 'list.titles.tsv'}: 1 line(s) name no paper of the list ('ffffffffffff')",
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [("1 Title without a tab\n", "line 1: expected a paper's number or id, a tab, then its title"),
     ("1\tOne\n4\tFour\n", "line 2: no paper number 4 (the list has 3)")],
)  # fmt: skip
def test_a_bad_sidecar_line_is_one_line_naming_the_sidecar_and_line(tmp_path, content, problem):
    path = copy(tmp_path, "text")
    (tmp_path / "arxiv-3.titles.tsv").write_text(content)
    with pytest.raises(ReadError) as err:
        load_papers(path)
    assert str(err.value) == f"{tmp_path / 'arxiv-3.titles.tsv'}: {problem}"


def test_a_sidecar_title_changes_the_cache_key_though_not_the_id(tmp_path):
    path = copy(tmp_path, "text")
    (tmp_path / "arxiv-3.titles.tsv").write_text("1\tOne title\n")
    before = load_papers(path).papers
    (tmp_path / "arxiv-3.titles.tsv").write_text("1\tAnother title\n")
    after = load_papers(path).papers
    assert [p.id for p in before] == [p.id for p in after]
    assert content_key(before) != content_key(after)  # the search index holds the title's words


@pytest.mark.parametrize(
    ("name", "content", "fmt"),
    [
        ("refs.txt", "% from Zotero\n\n@article{k, title={T}, abstract={A paper.}}\n", "bibtex"),
        ("feed.xml", '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"/>', "atom"),
        ("feed.txt", '<feed xmlns="http://www.w3.org/2005/Atom"></feed>', "atom"),
        ("arxiv-metadata-oai-snapshot.json", '{"id": "0704.0001", "abstract": "A."}\n{"id": "0704.0002"}\n', "jsonl"),
        ("export.json", '{\n  "version": 1,\n  "papers": []\n}\n', "json"),
        ("compact.json", '{"version": 1, "papers": []}', "json"),
        ("list", "Reading list\n\nWe study things.\n", "text"),
        ("braces.txt", "{BERT} and friends are studied here.\n", "text"),
        ("at.txt", "@ICML we study things.\n", "text"),
    ],
)
def test_the_reader_is_chosen_by_the_content_when_the_extension_does_not_say(name, content, fmt):
    assert choose(Path(name), content) == fmt


def test_format_overrides_the_extension(tmp_path):
    path = copy(tmp_path, "bibtex", "refs.txt")
    assert load_papers(path).format == "bibtex"
    with pytest.raises(ReadError, match=r"refs\.txt: line 1: not a JSON object"):
        load_papers(path, fmt="jsonl")


BAD = [
    ("bibtex", "@article{ok, title={Fine}, abstract={Fine.}}\n\n@misc{broken, title = {unclosed\n@misc{x, t={y}}\n",
     "line 3: not a BibTeX entry"),
    ("bibtex", "just some words, no entries\n", "no BibTeX entries"),
    ("atom", '<feed xmlns="http://www.w3.org/2005/Atom">\n<entry><title>T</title>\n</feed>',
     "line 3, column 3: not well-formed XML"),
    ("atom", '<rss version="2.0"></rss>', "not an Atom feed (its root is <rss>, not <feed>)"),
    ("atom", '<!DOCTYPE lol [<!ENTITY a "aaaa">]><feed xmlns="http://www.w3.org/2005/Atom"><title>&a;</title></feed>',
     "holds a DTD"),
    ("atom", '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#incorrect_id</id>'
     "<summary>incorrect id format for 1234</summary></entry></feed>",
     "the arXiv API answered with an error: incorrect id"),
    ("jsonl", '{"id": "1", "abstract": "A."}\n{"id": "2", "abstract": \n',
     "line 2: not a JSON object (Expecting value)"),
    ("jsonl", '{"id": "1", "abstract": ["A."]}\n', "line 1: 'abstract' is not a string"),
    ("csv", "Name,Comment\nx,y\n",
     "line 1: the header row names no title or abstract column (it has 'Name', 'Comment')"),
    ("csv", "Title,Abstract\nT,A.\nT," + "x" * 200_000, "line 3: field larger than field limit"),
    ("json", '{"version": 1, "papers": [{"id": "xyz", "text": "A."}]}', "paper 1: 'id' is not a readlist id"),
    ("json", '{"version": 1, "papers": [{"text": "A.", "authors": "Jane Doe"}]}', "paper 1: 'authors' is not a list"),
    ("json", '{"version": 2, "papers": []}', "written by a newer readlist (export version 2)"),
    ("json", '{"version": 1,\n "papers": [}', "line 2, column 13: not JSON"),
    ("json", "[1, 2]", 'not readlist\'s JSON export (no "papers" list)'),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "content", "problem"), BAD)
def test_bad_input_is_one_line_naming_the_file_and_where(tmp_path, fmt, content, problem):
    path = tmp_path / f"bad{EXTENSIONS[fmt]}"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ReadError) as err:
        load_papers(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and problem in message and "\n" not in message


@pytest.mark.parametrize("fmt", ["bibtex", "jsonl", "csv", "json"])
def test_duplicates_are_dropped_and_counted_and_records_without_abstract_or_title_named(tmp_path, fmt):
    rows = {
        "bibtex": "@misc{a, abstract={We study A.}}\n@misc{b, abstract={We  study\n A.}}\n@misc{c, year={2020}}\n",
        "jsonl": '{"abstract": "We study A."}\n{"abstract": "We study A. "}\n{"id": "x"}\n',
        "csv": 'abstract,year\nWe study A.,\n"We study\nA.",\n,2020\n',
        "json": '{"papers": [{"text": "We study A."}, {"text": "We study A."}, {"year": 2020}]}',
    }
    path = tmp_path / f"dups{EXTENSIONS[fmt]}"
    path.write_text(rows[fmt], encoding="utf-8")
    papers = load_papers(path)
    assert len(papers) == 1 and papers.duplicates == 1
    [notice] = papers.notices
    assert notice.startswith(f"{path}: left out 1 record(s) with neither an abstract nor a title (")


def test_a_json_export_reads_back_with_its_ids_titles_and_fields(tmp_path):
    for fmt in ("text", "bibtex", "atom"):
        original = load_papers(fixture(fmt))
        path = tmp_path / f"{fmt}.json"
        path.write_text(export(original.papers, {}, "json"), encoding="utf-8")
        again = load_papers(path)
        assert [p.id for p in again.papers] == [p.id for p in original.papers]
        assert [p.given_title for p in again.papers] == [p.given_title for p in original.papers]
        assert [p.record for p in again.papers] == [p.record for p in original.papers]
        assert [p.text for p in again.papers] == [p.text for p in original.papers]
    assert READS_VERSION == JSON_VERSION


def test_a_json_export_of_titled_paragraphs_keeps_their_ids(tmp_path, write_file):
    text = (
        "FastDiff: Four Steps\nWe distil a diffusion sampler into four steps and keep the quality of fifty.\n\n"
        "Graph Rewiring\nWe rewire graphs against over-squashing and prove that message passing improves.\n"
    )
    original = read_papers(write_file(text))
    assert original.has_titles
    path = tmp_path / "out.json"
    path.write_text(export(original.papers, {}, "json"), encoding="utf-8")
    again = load_papers(path)
    assert [(p.id, p.title) for p in again.papers] == [(p.id, p.title) for p in original.papers]
    assert json.loads(path.read_text())["papers"][0]["given_title"] == "FastDiff: Four Steps"


def test_identifiers_are_recognised_and_written_one_way():
    assert arxiv_id("arXiv:2210.12590v3") == arxiv_id("https://arxiv.org/pdf/2210.12590v1.pdf") == "2210.12590"
    assert arxiv_id("math/0501001v2") == "math/0501001" and arxiv_id("10.1/x") is None
    assert doi("https://doi.org/10.1145/3292500.3330701") == "10.1145/3292500.3330701" and doi("2210.12590") is None
    assert arxiv_category("cs-AI") == "cs.AI" and arxiv_category("astro-ph-CO") == "astro-ph.CO"
    assert arxiv_category("hep-th") == "hep-th" and arxiv_category("Computer Science") is None
    assert record_id("", doi="10.1145/ABC") == record_id("", doi="10.1145/abc")
    assert record_id("", arxiv="2210.12590") != record_id("", doi="2210.12590")
    assert record_id("", title="{BERT}: Pre-training") == record_id("", title="bert: pre-Training")
    assert record_id("") is None and record_id(" x ") == paper_id("x")


# Input close to each format, so that the fuzzing reaches past the first check.
_NEAR = {
    "bibtex": ("@article{k,\n", '@{}(),="#%\\ \nabtiletrsngAND'),
    "atom": ('<feed xmlns="http://www.w3.org/2005/Atom"><entry>', "<>/=\"'&;! \nidtlesumaryfeed"),
    "jsonl": ('{"id": "2210.12590", ', '{}[]":,\\ \nabstracttitleauthors0123'),
    "csv": ("title,abstract,authors,year\n", ',"\r\n\t; abc2020'),
    "tsv": ("title\tabstract\tauthors\tyear\n", '\t"\r\n, abc2020'),
    "json": ('{"version": 1, "papers": [{', '{}[]":,\\ \nidtextgiven_titleyear0123'),
    "text": ("Reading list\n\n", "\n .:abc{}@"),
}


@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_input_raises_only_read_error(fmt, data):
    start, alphabet = _NEAR[fmt]
    tail = data.draw(st.one_of(st.text(max_size=300), st.text(alphabet=alphabet, max_size=300)))
    content = data.draw(st.sampled_from([tail, start + tail]))
    try:
        papers = parse(content, "fuzz", fmt)
    except ReadError as exc:
        assert str(exc).startswith("fuzz") and "\n" not in str(exc)
    else:
        assert len(papers) and all(paper.text or paper.given_title for paper in papers.papers)
        assert len({paper.id for paper in papers.papers}) == len(papers)


def test_json_orjson_refuses_is_read_as_the_standard_library_reads_it():
    # A number past 64 bits and NaN are JSON to Python's reader; bad JSON keeps its message.
    line = '{"id": "2101.00001", "title": "T", "abstract": "We study A.", "year": NaN, "n": 123456789012345678901234}'
    [paper] = parse(line + "\n", "x.jsonl", "jsonl").papers
    assert (paper.given_title, paper.text, paper.arxiv_id) == ("T", "We study A.", "2101.00001")
    export = '{"version": 1, "n": 123456789012345678901234, "papers": [{"id": "0123456789ab", "text": "We study B."}]}'
    assert parse(export, "x.json", "json").papers[0].id == "0123456789ab"
    with pytest.raises(ReadError, match=r"x.jsonl: line 2: not a JSON object \(Expecting ',' delimiter\)"):
        parse(line + '\n{"id": "1" "title": "T"}\n', "x.jsonl", "jsonl")


def test_a_feed_title_with_latex_names_the_list_in_text(tmp_path):
    """The header showed the feed's title as written: 'Papers on $\\alpha$-divergences'."""
    feed = tmp_path / "feed.atom"
    feed.write_text(
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>Papers on $\\alpha$-divergences</title>\n'
        "<entry><title>T</title><summary>We study divergences.</summary></entry></feed>",
        encoding="utf-8",
    )
    assert load_papers(feed).name == "Papers on α-divergences"
