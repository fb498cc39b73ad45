"""`readlist search` and the on-disk index cache."""

import dataclasses
import hashlib
import json
import sys
import threading

import pytest
from click.testing import CliRunner

from readlist.cli import cli
from readlist.core.files.cache import papers_key
from readlist.core.papers.paper import Paper, Record
from readlist.core.papers.reader import read_papers
from readlist.core.search import cache as index_cache
from readlist.core.search import index as index_module
from readlist.core.text.normalize import paper_id
from readlist.core.text.tokens import TOKENS_VERSION

TEXT = (
    "Graph neural networks learn node representations.\n\n"
    "Diffusion models generate images from noise.\n\n"
    "Diffusion models for protein design.\n"
)


def paper_file(tmp_path, monkeypatch, name: str, text: str) -> list[str]:
    """The options reading `text` as the paper file `name`, with a cache of this test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    papers = tmp_path / name
    papers.write_text(text, encoding="utf-8")
    return ["--papers", str(papers), "--db", str(tmp_path / "db.json")]


@pytest.fixture
def env(tmp_path, monkeypatch):
    return paper_file(tmp_path, monkeypatch, "papers.txt", TEXT)


def test_ranked_lines(env):
    result = CliRunner().invoke(cli, [*env, "search", "difusion", "protein"])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0].split()
    assert first[:2] == ["1", "3"]


def test_json_has_scores_and_matched_terms(env):
    result = CliRunner().invoke(cli, [*env, "search", "diffusion", "-images", "--json"])
    rows = json.loads(result.output)
    assert [row["index"] for row in rows] == [3]
    assert set(rows[0]) >= {"index", "id", "title", "score", "matched"}
    assert rows[0]["matched"] == ["diffusion"]


def test_bad_query_is_one_line_and_exit_2(env):
    result = CliRunner().invoke(cli, [*env, "search", '"open'])
    assert result.exit_code == 2
    assert "unclosed quote" in result.output


def test_no_match_exits_1(env):
    assert CliRunner().invoke(cli, [*env, "search", "zebra"]).exit_code == 1


def test_cache_round_trip_and_damage(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(TEXT, encoding="utf-8")
    papers = read_papers(path).papers
    built = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    files = list((tmp_path / "c").glob("*.idx"))
    assert len(files) == 1
    loaded = index_cache.load(files[0], index_cache.content_key(papers))
    assert loaded is not None and loaded.terms == built.data.terms
    assert list(loaded.body.docs) == list(built.data.body.docs)
    files[0].write_bytes(files[0].read_bytes()[:-7])  # truncated
    assert index_cache.load(files[0], index_cache.content_key(papers)) is None
    again = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    assert list(again.search("protein").positions) == [2]
    assert index_cache.load(files[0], "other key") is None


def test_a_cached_index_is_read_a_piece_at_a_time(tmp_path, monkeypatch):
    # Each read holds the interpreter (the UI waiting meanwhile): at 100k papers the 40 MB of postings read at once
    # held it for 50 ms.
    monkeypatch.setattr(index_cache, "CHUNK", 16, raising=False)  # bytes: four postings a read
    reads = []

    class Counted:
        def __init__(self, *args):
            self.handle = open(*args)  # noqa: SIM115 (closed by __exit__, as load's `with` does)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def readline(self):
            return self.handle.readline()

        def read(self, size=-1):
            data = self.handle.read(size)
            reads.append(len(data))
            return data

    path = tmp_path / "p.txt"
    path.write_text(TEXT, encoding="utf-8")
    papers = read_papers(path).papers
    built = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    (cached,) = (tmp_path / "c").glob("*.idx")
    monkeypatch.setattr(index_cache, "open", Counted, raising=False)
    loaded = index_cache.load(cached, index_cache.content_key(papers))
    assert loaded is not None and list(loaded.body.docs) == list(built.data.body.docs) and len(loaded.body.docs) > 4
    terms = len("\n".join(built.data.terms).encode())
    assert reads[0] == terms and max(reads[1:]) <= 16  # the terms, then the arrays a piece at a time


@pytest.mark.parametrize("damage", ["a paper past the list", "terms out of order"])
def test_a_cached_index_that_cannot_be_this_lists_is_built_again(tmp_path, monkeypatch, damage):
    monkeypatch.setattr(index_cache, "SLICE", 2)  # the checks, made a slice at a time, cross slices here
    (tmp_path / "p.txt").write_text(TEXT, encoding="utf-8")
    papers = read_papers(tmp_path / "p.txt").papers
    data = index_cache.load_or_build(papers, cache_dir=tmp_path / "c").data
    if damage == "a paper past the list":
        data.body.docs[-1] = len(papers)
    else:
        data = dataclasses.replace(data, terms=tuple(reversed(data.terms)))
    key = index_cache.content_key(papers)
    index_cache.save(data, key, tmp_path / "c" / f"{key}.idx")
    assert index_cache.load(tmp_path / "c" / f"{key}.idx", key) is None
    assert list(index_cache.load_or_build(papers, cache_dir=tmp_path / "c").search("protein").positions) == [2]


def test_a_cached_index_damaged_on_disk_where_it_still_looks_whole_is_built_again(tmp_path):
    (tmp_path / "p.txt").write_text(TEXT, encoding="utf-8")
    papers = read_papers(tmp_path / "p.txt").papers
    built = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    (cached,) = (tmp_path / "c").glob("*.idx")
    raw = bytearray(cached.read_bytes())
    docs = built.data.body.docs
    at = raw.index(memoryview(docs).cast("B").tobytes()) + 4 * [*docs].index(0)  # a posting of the first paper
    raw[at : at + 4] = (1).to_bytes(4, sys.byteorder)  # the second paper's: in the list, in order, as if whole
    cached.write_bytes(bytes(raw))
    assert index_cache.load(cached, cached.stem) is None
    again = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    assert list(again.data.body.docs) == list(built.data.body.docs)
    assert index_cache.load(cached, cached.stem) is not None  # written again


def test_a_cached_index_mapped_in_memory_is_the_one_read_whole_and_its_damage_is_seen(tmp_path):
    (tmp_path / "p.txt").write_text(TEXT * 3, encoding="utf-8")  # a few dozen terms: arrays not aligned in the file
    papers = read_papers(tmp_path / "p.txt").papers
    built = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    (cached,) = (tmp_path / "c").glob("*.idx")
    read, mapped = index_cache.load(cached, cached.stem), index_cache.load_mapped(cached, cached.stem)
    assert mapped is not None and mapped.terms == read.terms
    for name, _ in index_cache._SECTIONS:
        assert list(index_cache._arrays(mapped)[name]) == list(index_cache._arrays(read)[name]), name
    index = index_cache.load_or_build(papers, cache_dir=tmp_path / "c", mapped=True)
    for query in ("diffusion protein", "graph", "difusion -images", '"protein design"', "title:models"):
        assert index.search(query).positions == built.search(query).positions
        assert list(index.search(query).scores) == list(built.search(query).scores)
    raw = cached.read_bytes()
    for damaged in (raw[:-3], raw + b"\0", raw[:-5] + bytes([raw[-5] ^ 1]) + raw[-4:]):
        cached.write_bytes(damaged)
        assert index_cache.load_mapped(cached, cached.stem) is None


def test_a_cached_index_opens_with_what_its_searches_need_read_from_the_file(tmp_path):
    # At 100k papers, opening a cached index made each paper's length norm, the terms of each length and a dict of
    # every term (35-40 ms of CPU, the first search waiting): the norms and the terms' order by length are kept in the
    # file and read mapped, and a term is found by bisection until a dict of them all is asked for.
    (tmp_path / "p.txt").write_text(TEXT * 3, encoding="utf-8")
    papers = read_papers(tmp_path / "p.txt").papers
    built = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    index = index_cache.load_or_build(papers, cache_dir=tmp_path / "c", mapped=True)
    assert index.unsaved is None  # opened from the cache
    assert isinstance(index.norms, memoryview) and list(index.norms) == list(built.norms)
    assert not isinstance(index.by_length, dict) and dict(index.by_length) == dict(built.by_length)
    assert not isinstance(index.term_ids, dict)
    for query in ("grahp nerual", "difusion prot", "models", "title:protein", '"protein design"', "netwrks -images"):
        assert index.search(query).positions == built.search(query).positions, query
        assert list(index.search(query).scores) == list(built.search(query).scores), query
    assert all(index.term_ids[term] == n for n, term in enumerate(built.data.terms))
    assert "zebra" not in index.term_ids and index.term_ids.get("zebra") is None
    assert index.term_ids.whole() == {term: n for n, term in enumerate(built.data.terms)}
    assert all(index.term_ids[term] == n for n, term in enumerate(built.data.terms))


def test_a_cached_index_knows_how_many_of_its_papers_have_a_title_of_their_own(tmp_path, monkeypatch):
    # Counted by asking each paper at the first search (7 ms of CPU at 100k papers, the answer waiting): kept in the
    # file, whose key says which papers have one.
    texts = TEXT.split("\n\n")
    papers = [Paper(id=paper_id(text), index=n + 1, text=text) for n, text in enumerate(texts)]
    papers[1] = dataclasses.replace(papers[1], given_title="Images from noise")
    built = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    assert built.fields.titled == 1
    asked = []
    monkeypatch.setattr(Paper, "known_title", property(lambda paper: asked.append(paper) or paper.given_title))
    for mapped in (False, True):
        asked.clear()
        index = index_cache.load_or_build(papers, cache_dir=tmp_path / "c", mapped=mapped)
        assert index.unsaved is None and index.fields.titled == 1 and not asked
        for query in ("diffusion", "images noise", "title:images"):
            assert index.search(query).positions == built.search(query).positions, query
    untitled = [dataclasses.replace(paper, given_title=None) for paper in papers]  # another key: another file
    assert index_cache.load_or_build(untitled, cache_dir=tmp_path / "c").fields.titled == 0


def test_terms_looked_up_often_by_bisection_are_looked_up_in_a_dict_of_them_all(monkeypatch):
    # An index searched again and again without the app to ask for the dict (bench_quality's 300 searches, a
    # script's) looked each term up by bisection: 5.0 ms a search, 4.1 with the dict.
    monkeypatch.setattr(index_module, "BISECTED", 3)
    terms = ("graph", "model", "network", "neural")
    ids = index_module.TermIds(terms)
    assert [ids.get(term) for term in ("model", "zebra", "neural")] == [1, None, 3]
    assert not isinstance(getattr(ids.get, "__self__", None), dict)  # still by bisection
    assert ids.get("graph") == 0 and ids["network"] == 2 and "zebra" not in ids
    assert isinstance(ids.get.__self__, dict) and ids.whole() == {term: n for n, term in enumerate(terms)}


def test_a_lists_content_key_is_its_papers_lines_hashed_whether_they_have_titles_and_names_or_not():
    # A list without titles or records is keyed in a few C-level calls (13 ms of CPU at 100k papers, now 7): the
    # same key as its papers' lines hashed one by one, and a title or a name makes another.
    def by_lines(papers) -> str:
        names = "\n".join(
            "" if p.record is None else "\x1f".join((*p.record.authors, p.record.found_title or "")) for p in papers
        )
        authors = hashlib.blake2b(names.encode(), digest_size=16).hexdigest()
        head = f"format {index_cache.FORMAT} tokens {TOKENS_VERSION} authors {authors}\n"
        digest = hashlib.blake2b(head.encode(), digest_size=16)
        for p in papers:
            digest.update(f"{p.id}\t{p.given_title}\n".encode() if p.given_title else f"{p.id}\n".encode())
        return digest.hexdigest()

    texts = TEXT.split("\n\n")
    plain = [Paper(id=paper_id(text), index=n + 1, text=text) for n, text in enumerate(texts)]
    titled = [plain[0], dataclasses.replace(plain[1], given_title="Images from noise"), plain[2]]
    named = [plain[0], plain[1], dataclasses.replace(plain[2], record=Record(authors=("Ada Lovelace",)))]
    lists = ([], plain[:1], plain, titled, named)
    keys = [index_cache.content_key(papers) for papers in lists]
    assert keys == [by_lines(papers) for papers in lists] and len(set(keys)) == len(lists)
    assert papers_key("h", iter(plain)) == papers_key("h", plain) == papers_key("h", tuple(plain))


def test_what_was_checked_of_a_cached_index_when_it_was_written_is_under_its_crc(tmp_path):
    # The greatest paper of the postings and the terms' order are checked as the index is written (not by reading
    # every term when it opens): a header saying otherwise than the writer found is a damaged file.
    (tmp_path / "p.txt").write_text(TEXT, encoding="utf-8")
    papers = read_papers(tmp_path / "p.txt").papers
    index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    (cached,) = (tmp_path / "c").glob("*.idx")
    raw = cached.read_bytes()
    head = raw[: raw.index(b"\n")]
    assert b'"last": 2' in head and b'"ascending": true' in head
    for reading in (index_cache.load, index_cache.load_mapped):
        cached.write_bytes(raw.replace(b'"last": 2', b'"last": 1', 1))
        assert reading(cached, cached.stem) is None
    again = index_cache.load_or_build(papers, cache_dir=tmp_path / "c", mapped=True)
    assert list(again.search("protein").positions) == [2]
    assert index_cache.load_mapped(cached, cached.stem) is not None  # written again


def test_a_cached_index_damaged_in_its_middle_or_its_terms_is_not_read_mapped(tmp_path):
    # The CRC-32 of a mapped file is made in a thread beside the reading of its terms: it is waited for whatever
    # the terms hold.
    (tmp_path / "p.txt").write_text(TEXT * 3, encoding="utf-8")
    papers = read_papers(tmp_path / "p.txt").papers
    built = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    (cached,) = (tmp_path / "c").glob("*.idx")
    raw = cached.read_bytes()
    body = raw.index(b"\n") + 1
    threads = threading.active_count()
    for at, byte in ((body + (len(raw) - body) // 2, None), (body + 1, 0xFF)):  # a posting or a norm; a term
        damaged = bytearray(raw)
        damaged[at] = damaged[at] ^ 1 if byte is None else byte
        cached.write_bytes(bytes(damaged))
        assert index_cache.load_mapped(cached, cached.stem) is None
        assert threading.active_count() == threads
    again = index_cache.load_or_build(papers, cache_dir=tmp_path / "c", mapped=True)
    assert again.search("protein").positions == built.search("protein").positions


def test_is_missing_lists_the_same_papers_as_list_missing(env, tmp_path):
    runner = CliRunner()
    runner.invoke(cli, [*env, "note", "#1", "--text", "kept"])
    runner.invoke(cli, [*env, "star", "#2"])
    runner.invoke(cli, [*env, "unstar", "#2"])  # an annotation with nothing set any more
    gone = read_papers(tmp_path / "papers.txt").papers[:2]
    (tmp_path / "papers.txt").write_text("Diffusion models for protein design.\n", encoding="utf-8")
    result = runner.invoke(cli, [*env, "search", "is:missing"])
    assert result.exit_code == 0, result.output
    assert [line.split()[0] for line in result.stdout.splitlines()] == [gone[0].id]
    listed = runner.invoke(cli, [*env, "list", "--missing"])
    assert listed.stdout == result.stdout  # the same lines: id, marks, title
    as_json = runner.invoke(cli, [*env, "search", "is:missing", "--json"])
    assert [(row["id"], row["note"]) for row in json.loads(as_json.stdout)] == [(gone[0].id, "kept")]


def test_exit_status_is_1_when_no_paper_holds_every_word(env):
    partial = CliRunner().invoke(cli, [*env, "search", "diffusion", "xyzzyqq"])
    assert partial.exit_code == 1 and "missing some word" in partial.stdout  # listed, but no match
    assert CliRunner().invoke(cli, [*env, "search", "diffusion"]).exit_code == 0


def test_output_that_cannot_be_written_is_one_line_and_status_2(env):
    import subprocess
    import sys

    if not __import__("os").path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "readlist", *env, "list"], stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert done.stderr.decode().strip() == "readlist: cannot write the output: No space left on device"


def test_title_search_and_list_use_the_derived_titles_cached_on_disk(tmp_path, monkeypatch):
    from readlist.core.titles import derive as titles

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    papers = tmp_path / "papers.txt"
    papers.write_text(
        "Reasoning over tables is hard for language models. We introduce TableBench, a benchmark of table "
        "questions with verified answers.\n\nDiffusion models for protein design.\n",
        encoding="utf-8",
    )
    env = ["--papers", str(papers), "--db", str(tmp_path / "db.json")]
    assert CliRunner().invoke(cli, [*env, "list", "--starred"]).exit_code == 0
    assert not (tmp_path / "cache" / "readlist" / "titles").exists()  # a filtered list derives only its rows
    result = CliRunner().invoke(cli, [*env, "search", "title:tablebench"])
    assert result.exit_code == 0, result.output
    assert result.output.split()[:2] == ["1", "1"]
    assert CliRunner().invoke(cli, [*env, "search", "title:hard"]).exit_code == 1  # no match
    listed = CliRunner().invoke(cli, [*env, "list"]).output

    def fail(plain):
        raise AssertionError("derived again")

    monkeypatch.setattr(titles, "derive_title", fail)
    again = CliRunner().invoke(cli, [*env, "list"])
    assert again.exit_code == 0 and again.output == listed
    assert "TableBench: " in listed


@pytest.mark.parametrize(
    "args",
    [
        ["-images", "diffusion"],
        ["-images diffusion"],
        ["diffusion", "-images", "-n", "5"],
        ["-n5", "-images", "diffusion"],
    ],
)
def test_a_query_may_start_with_an_excluded_word(env, args):
    result = CliRunner().invoke(cli, [*env, "search", *args])
    assert result.exit_code == 0, result.output
    assert [line.split()[1] for line in result.output.splitlines()] == ["3"]


def test_options_still_work_around_the_query(env):
    result = CliRunner().invoke(cli, [*env, "search", "--limit=1", "diffusion", "--json"])
    assert [row["index"] for row in json.loads(result.output)] == [3]  # the shorter abstract ranks first
    assert CliRunner().invoke(cli, [*env, "search", "-n"]).exit_code == 2


def test_search_prints_the_users_own_title_which_it_also_matches(env, tmp_path):
    from readlist.core.store.store import Store

    papers = read_papers(tmp_path / "papers.txt").papers
    Store(tmp_path / "db.json").update(papers[2], title="Protein backbones by diffusion (group reading)")
    result = CliRunner().invoke(cli, [*env, "search", "title:reading"])
    assert result.exit_code == 0, result.output
    assert result.output.split(None, 3)[1:] == ["3", papers[2].id, "Protein backbones by diffusion (group reading)\n"]
    rows = json.loads(CliRunner().invoke(cli, [*env, "search", "title:backbones", "--json"]).output)
    assert [row["title"] for row in rows] == ["Protein backbones by diffusion (group reading)"]


def test_a_search_makes_only_the_annotations_holding_words_and_still_finds_a_note_or_a_mark(env, tmp_path, monkeypatch):
    from readlist.core.store.annotation import Annotation
    from readlist.core.store.store import Store

    papers = read_papers(tmp_path / "papers.txt").papers
    store = Store(tmp_path / "db.json")
    store.update_many(papers, status="read")  # a whole list marked read: marks alone, no words
    store.update(papers[1], note="Compare with the zebrafish baseline.")
    store.update(papers[0], starred=True)
    assert CliRunner().invoke(cli, [*env, "list"]).exit_code == 0  # the list remembered, as after its first command
    made = []
    from_stored = Annotation.from_stored.__func__
    counted = classmethod(lambda cls, doc: made.append(doc["id"]) or from_stored(cls, doc))
    monkeypatch.setattr(Annotation, "from_stored", counted)
    result = CliRunner().invoke(cli, [*env, "search", "zebrafish"])  # in the note alone
    assert result.exit_code == 0, result.output
    assert result.output.split()[1:3] == ["2", papers[1].id]
    assert made == [papers[1].id]  # not one annotation a paper marked read holds
    starred = CliRunner().invoke(cli, [*env, "search", "is:starred", "graph"])  # a flag reads the marks
    assert starred.exit_code == 0, starred.output
    assert starred.output.split()[1:3] == ["1", papers[0].id]
    rows = json.loads(CliRunner().invoke(cli, [*env, "search", "zebrafish", "--json"]).output)
    assert [(row["index"], row["status"], row["note"]) for row in rows] == [
        (2, "read", "Compare with the zebrafish baseline.")
    ]
    made.clear()
    rows = json.loads(CliRunner().invoke(cli, [*env, "search", "diffusion", "--json"]).output)  # marks alone
    assert sorted((row["index"], row["status"], row["starred"]) for row in rows) == [
        (2, "read", False),
        (3, "read", False),
    ]
    assert sorted(made) == sorted([papers[1].id, papers[1].id, papers[2].id])  # the words, and the papers printed


CSV = (
    "title,abstract,authors,year,venue,categories\n"
    "Graph nets,Graph neural networks learn node representations.,Ada Lovelace; Kurt Gödel,2019,NeurIPS,cs.LG\n"
    "Diffusion,Diffusion models generate images from noise.,Grace Hopper,2023,ICML 2023,cs.CV; stat.ML\n"
)


@pytest.fixture
def csv_env(tmp_path, monkeypatch):
    return tmp_path / "papers.csv", paper_file(tmp_path, monkeypatch, "papers.csv", CSV)


@pytest.mark.parametrize(
    "query, found",
    [
        (["author:godel"], [1]),
        (["hopper"], [2]),
        (["year:2020.."], [2]),
        (["venue:icml"], [2]),
        (["cat:stat"], [2]),
        (["cat:cs", "-year:2023"], [1]),
    ],
)
def test_record_fields_from_the_command_line(csv_env, query, found):
    result = CliRunner().invoke(cli, [*csv_env[1], "search", *query, "--json"])
    assert result.exit_code == 0, result.output
    assert [row["index"] for row in json.loads(result.output)] == found


@pytest.mark.parametrize("query", ["year:abc", "year:2025..2020"])
def test_a_bad_year_is_one_line_and_exit_2(csv_env, query):
    result = CliRunner().invoke(cli, [*csv_env[1], "search", "graph", query])
    assert result.exit_code == 2
    assert result.output.startswith(f"readlist: search: {query} ") and result.output.count("\n") == 1


def test_the_cached_index_follows_a_change_of_authors(csv_env):
    path, env = csv_env
    assert CliRunner().invoke(cli, [*env, "search", "author:hopper"]).exit_code == 0
    path.write_text(CSV.replace("Grace Hopper", "Alan Turing"), encoding="utf-8")  # the same abstracts and ids
    result = CliRunner().invoke(cli, [*env, "search", "author:turing", "--json"])
    assert [row["index"] for row in json.loads(result.output)] == [2]
    assert CliRunner().invoke(cli, [*env, "search", "author:hopper"]).exit_code == 1


def test_search_help_names_every_field_of_the_query_table():
    from readlist.core.search.query import OPERATORS

    shown = " ".join(CliRunner().invoke(cli, ["search", "--help"]).output.split())
    assert all(f"{op.field}:" in shown for op in OPERATORS)


@pytest.mark.parametrize("query", ["", "title:", "   ", '""', "!!!", "tag:"])
def test_a_query_with_nothing_to_search_for_is_one_line_and_exit_2(env, query):
    result = CliRunner().invoke(cli, [*env, "search", query])
    assert result.exit_code == 2  # before: every paper, exit 0
    assert result.stdout == ""
    assert result.stderr.startswith("readlist: search: ") and "nothing to search for" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_paper_holding_no_query_word_is_no_partial_match():
    # The bundled list's #4 says "quantifying", a near form of "quantum", and holds neither word.
    result = CliRunner().invoke(cli, ["search", "quantum", "teleportation", "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout) == []  # before: #4, with "matched": []
    some = CliRunner().invoke(cli, ["search", "quantifying", "teleportation", "--json"])
    assert [row["index"] for row in json.loads(some.stdout)] == [4]  # holding one word, it is listed


def test_a_field_the_paper_file_never_gives_is_named_when_nothing_matches(env):
    """`year:2024` over plain abstracts said nothing but exit 1, as if no paper were from 2024."""
    result = CliRunner().invoke(cli, [*env, "search", "diffusion", "year:2024", "venue:icml"])
    assert result.exit_code == 1
    assert result.output.strip() == (
        "readlist: search: no paper matches 'diffusion year:2024 venue:icml': the paper file gives no years "
        "and no venues"
    )
    assert CliRunner().invoke(cli, [*env, "search", "zebra"]).output == ""  # a word that matches nothing: no hint


def test_an_index_built_is_cached_with_the_length_norms_it_made_not_made_again(tmp_path, monkeypatch):
    path = tmp_path / "p.txt"
    path.write_text(TEXT, encoding="utf-8")
    papers = read_papers(path).papers
    made = []
    norms = index_module.length_norms
    monkeypatch.setattr(index_module, "length_norms", lambda lengths: made.append(True) or norms(lengths))
    built = index_cache.load_or_build(papers, cache_dir=tmp_path / "c")
    assert len(made) == 1  # as the index was built; its cache file got them from it
    [cached] = (tmp_path / "c").glob("*.idx")
    loaded = index_cache.load(cached, index_cache.content_key(papers))
    assert loaded is not None and list(loaded.lookups.norms) == list(built.norms)
