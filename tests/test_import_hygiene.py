"""The core must stay usable without the UI: importing it never loads Textual."""

import subprocess
import sys

import pytest

CORE_MODULES = [
    "readlist.core",
    "readlist.core.reader",
    "readlist.core.paper",
    "readlist.core.text",
    "readlist.core.titles",
    "readlist.core.title_rules",
    "readlist.core.title_acronyms",
    "readlist.core.title_clauses",
    "readlist.core.title_claims",
    "readlist.core.title_names",
    "readlist.core.title_gist",
    "readlist.core.title_topic",
    "readlist.core.title_compose",
    "readlist.core.refs",
    "readlist.core.paths",
    "readlist.core.annotation",
    "readlist.core.atomic_storage",
    "readlist.core.atomic_files",
    "readlist.core.cache_files",
    "readlist.core.title_cache",
    "readlist.core.search_fields",
    "readlist.core.backups",
    "readlist.core.changes",
    "readlist.core.database",
    "readlist.core.db_format",
    "readlist.core.migrations",
    "readlist.core.reattach",
    "readlist.core.store",
    "readlist.core.stats",
    "readlist.core.export",
    "readlist.core.related",
    "readlist.core.merge",
    "readlist.core.merge_db",
    "readlist.core.tokens",
    "readlist.core.query",
    "readlist.core.matching",
    "readlist.core.postings",
    "readlist.core.search",
    "readlist.core.search_eval",
    "readlist.core.search_notes",
    "readlist.core.search_marks",
    "readlist.core.index_cache",
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
