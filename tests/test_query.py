"""The query language: what each form parses to, the messages for bad queries, and the help that lists it."""

import pytest

from readlist.core.search.query import OPERATORS, QueryError, Term, parse, year_range
from readlist.tui.screens.dialogs.help import EXTRA
from readlist.tui.widgets.search_bar import SearchBar


def test_words_phrases_and_fields():
    q = parse('graph "exact phrase" -noise title:survey note:todo tag:ml id:ab12 is:starred')
    assert q.terms == (
        Term("word", "graph"),
        Term("phrase", "exact phrase", quoted=True),
        Term("word", "noise", negated=True),
        Term("title", "survey"),
        Term("note", "todo"),
        Term("tag", "ml"),
        Term("id", "ab12"),
        Term("is", "starred"),
    )


def test_last_word_is_a_prefix_only_while_typing():
    assert parse("graph neu").terms[-1].prefix
    assert not parse("graph neu ").terms[-1].prefix
    assert not parse('"graph neu"').terms[-1].prefix


def test_negated_phrase_and_field():
    q = parse('-"large language" -tag:old -is:read')
    assert q.terms == (
        Term("phrase", "large language", negated=True, quoted=True),
        Term("tag", "old", negated=True),
        Term("is", "read", negated=True),
    )


def test_fields_ignore_case_and_title_takes_a_phrase():
    assert parse('TITLE:"graph nets"').terms == (Term("title", "graph nets", quoted=True),)


@pytest.mark.parametrize("text", ['"open', 'graph "neural net', 'title:"x'])
def test_unclosed_quote(text):
    with pytest.raises(QueryError, match="unclosed quote"):
        parse(text)


def test_unknown_is_value_names_the_choices():
    with pytest.raises(QueryError) as info:
        parse("is:foo graph")
    assert str(info.value) == "unknown is:foo (try starred, unread, reading, read, noted, missing)"


def test_is_value_being_typed_is_not_an_error_yet():
    assert parse("graph is:sta").terms == (Term("word", "graph"),)
    with pytest.raises(QueryError):
        parse("is:sta graph")


def test_latex_in_the_query_becomes_unicode():
    assert parse(r"$\epsilon$-greedy").terms[0].value == "ε-greedy"


def test_blank_and_empty_parts():
    assert parse("   ").blank
    assert parse('"" title: -').terms == (Term("word", "-", prefix=True),)


@pytest.mark.parametrize("query", ["is:missing graphs", "-is:missing", "is:missing is:starred"])
def test_is_missing_cannot_be_combined(query):
    with pytest.raises(QueryError, match="is:missing stands alone"):
        parse(query)


@pytest.mark.parametrize("query", ["is:missing", " IS:Missing "])
def test_is_missing_alone_asks_for_the_missing_papers(query):
    assert parse(query).asks_for_missing


@pytest.mark.parametrize("query", ["", "missing", '"is:missing"', "is:starred", "is:mis"])
def test_other_queries_do_not_ask_for_the_missing_papers(query):
    assert not parse(query).asks_for_missing


@pytest.mark.parametrize("op", OPERATORS, ids=lambda op: op.label)
def test_every_form_of_the_table_parses_and_the_help_names_it(op):
    value = {"year": "2023", "in": "all"}.get(op.field, "abc")
    typed = op.label if op.flag else f"{op.label}{value}"
    assert parse(typed + " ").terms == (Term(op.field, op.value if op.flag else value),)
    help_rows = " ".join(f"{keys} {what}" for group, keys, what in EXTRA if group == "Search bar")
    assert op.label in help_rows
    assert (op.label in SearchBar.LONG_HINT) is op.hint


def test_record_fields():
    q = parse('AUTHOR:hinton year:2023..2025 venue:"neural information" -cat:cs.LG ')
    assert q.terms == (
        Term("author", "hinton"),
        Term("year", "2023..2025"),
        Term("venue", "neural information", quoted=True),
        Term("cat", "cs.LG", negated=True),
    )


@pytest.mark.parametrize(
    "value, years",
    [("2023", (2023, 2023)), ("2023..2025", (2023, 2025)), ("2023..", (2023, None)), ("..2020", (None, 2020))],
)
def test_year_values(value, years):
    assert year_range(value) == years
    assert parse(f"year:{value}").terms == (Term("year", value, prefix=True),)


@pytest.mark.parametrize(
    "value, message",
    [
        ("abc", "year:abc is not a year (try year:2023, year:2020..2023, year:2020.. or year:..2020)"),
        ("..", "year:.. is not a year"),
        ("2023...2024", "year:2023...2024 is not a year"),
        ("20231", "year:20231 is not a year"),
        ("2025..2020", "year:2025..2020 ends before it starts (try year:2020..2025)"),
    ],
)
def test_bad_years_are_refused_with_what_to_type(value, message):
    for query in (f"year:{value} graph", f"graph year:{value} ", f"-year:{value} "):
        with pytest.raises(QueryError) as info:
            parse(query)
        assert str(info.value).startswith(message)


@pytest.mark.parametrize("typed", ["year:2023.", "year:2023..20", "year:..", "year:."])
def test_a_year_range_being_typed_is_not_an_error_yet(typed):
    assert parse(f"graph {typed}").terms == (Term("word", "graph"),)
    with pytest.raises(QueryError):
        parse(f"{typed} graph")


@pytest.mark.parametrize("typed", ["year:abc", "year:2025..2020", "year:2023...", "year:12345"])
def test_a_year_that_cannot_become_one_is_an_error_while_typing(typed):
    with pytest.raises(QueryError):
        parse(f"graph {typed}")  # also what `readlist search graph year:abc` parses
