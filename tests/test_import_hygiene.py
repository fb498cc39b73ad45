"""The core must stay usable without the UI: importing it never loads Textual."""

import subprocess
import sys

WALK_CORE = """
import importlib, pkgutil, sys
import readlist.core as core
names = [info.name for info in pkgutil.walk_packages(core.__path__, "readlist.core.")]
for name in names:
    importlib.import_module(name)
print(len(names), sorted(m for m in sys.modules if m.split(".")[0] == "textual")[:3])
"""


def test_no_core_module_imports_textual():
    """Every module under readlist.core, found by walking the package (none left off a list), imported in one
    fresh interpreter: Textual is never loaded."""
    out = subprocess.run([sys.executable, "-c", WALK_CORE], capture_output=True, text=True, check=True)
    count, loaded = out.stdout.strip().split(" ", 1)
    assert int(count) >= 50  # the walk found the modules (the folders' too), not an empty package
    assert loaded == "[]"


def test_cli_list_does_not_import_textual(tmp_path):
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom readlist.cli import cli\n"
        "r = CliRunner().invoke(cli, ['list'])\nassert r.exit_code == 0, r.output\n"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_commands_reading_the_database_do_not_import_the_http_client(tmp_path):
    """Only `resolve` sends anything: the others (which read what it found from the database) start without httpx,
    which takes about a quarter of a second to import."""
    db = tmp_path / "readlist.json"
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom readlist.cli import cli\n"
        f"for args in (['star', '#1'], ['list'], ['show', '#1'], ['export', '--all']):\n"
        f"    r = CliRunner().invoke(cli, ['--db', {str(db)!r}, *args])\n"
        "    assert r.exit_code == 0, r.output\n"
        "print('httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
