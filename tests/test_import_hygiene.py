"""The core must stay usable without the UI: importing it never loads Textual."""

import subprocess
import sys

import pytest

CORE_MODULES = [
    "readlist.core",
    "readlist.core.papers.reader",
    "readlist.core.papers.paper",
    "readlist.core.text.normalize",
    "readlist.core.titles.derive",
    "readlist.core.titles.rules",
    "readlist.core.titles.acronyms",
    "readlist.core.titles.clauses",
    "readlist.core.titles.claims",
    "readlist.core.titles.names",
    "readlist.core.titles.gist",
    "readlist.core.titles.topic",
    "readlist.core.titles.compose",
    "readlist.core.papers.refs",
    "readlist.core.files.paths",
    "readlist.core.store.annotation",
    "readlist.core.store.storage",
    "readlist.core.files.atomic",
    "readlist.core.files.cache",
    "readlist.core.papers.title_cache",
    "readlist.core.search.fields",
    "readlist.core.store.backups",
    "readlist.core.store.changes",
    "readlist.core.store.database",
    "readlist.core.store.format",
    "readlist.core.store.migrations",
    "readlist.core.store.reattach",
    "readlist.core.store.store",
    "readlist.core.store.stats",
    "readlist.core.export.formats",
    "readlist.core.search.related",
    "readlist.core.store.merge",
    "readlist.core.store.merge_file",
    "readlist.core.text.tokens",
    "readlist.core.search.query",
    "readlist.core.search.matching",
    "readlist.core.search.postings",
    "readlist.core.search.index",
    "readlist.core.search.evaluate",
    "readlist.core.search.notes",
    "readlist.core.search.marks",
    "readlist.core.search.cache",
]


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_does_not_import_textual(module):
    code = f"import sys, {module}; print(any(m.split('.')[0] == 'textual' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_list_does_not_import_textual(tmp_path):
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom readlist.cli import cli\n"
        "r = CliRunner().invoke(cli, ['list'])\nassert r.exit_code == 0, r.output\n"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
