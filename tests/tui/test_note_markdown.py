"""The note drawn from its Markdown in the detail pane: safely, its links shown and opened with a key only, and
a huge note kept from stalling the pane."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from readlist.core.store.store import Store
from readlist.tui.screens.dialogs.links import LinksScreen
from readlist.tui.widgets.detail_body import DetailBody
from readlist.tui.widgets.note_markdown import NOTE_SHOWN, note_text

from .conftest import make_app, settle, wait_for_screen

NOTE = """# Plan
Read **section 3** first, then *skim* the `proofs`.

- compare with [the baseline](https://example.org/baseline)
- check <https://example.org/code>
  1. nested step

> quoted [/bold] [link=https://evil.example]click[/link] \x1b[31mred\x1b[0m\x07

```
[b]code stays as written[/b]
```
"""


def noted_app(tmp_path, note: str):
    app = make_app(tmp_path)
    store = Store(tmp_path / "db.json")
    store.set_note(app.papers.papers[0], note)
    store.flush()
    return make_app(tmp_path)


def styled(text, words: str) -> set[str]:
    """The styles (as Rich writes them) of the spans covering `words` in `text`."""
    start = text.plain.index(words)
    return {str(span.style) for span in text.spans if span.start <= start and span.end >= start + len(words)}


async def test_the_note_is_drawn_from_its_markdown_and_nothing_in_it_is_markup_or_a_terminal_code(tmp_path):
    app = noted_app(tmp_path, NOTE)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = app.main_screen.query_one(DetailBody)._text
        plain = text.plain
        assert "Plan\n\nRead section 3 first, then skim the proofs." in plain  # before: "# Plan", "**section 3**"
        assert "bold" in styled(text, "section 3") and "italic" in styled(text, "skim")
        assert "bold underline" in styled(text, "Plan")
        assert "• compare with the baseline <https://example.org/baseline>" in plain  # the link's address shown
        assert "• check https://example.org/code\n  1. nested step" in plain
        assert "▌ quoted [/bold] [link=https://evil.example]click[/link] red" in plain  # literally, no codes
        assert "[b]code stays as written[/b]" in plain
        assert "\x1b" not in plain and "\x07" not in plain
        assert not any(span.style.link or span.style.meta for span in text.spans if not isinstance(span.style, str))


async def test_O_offers_the_notes_links_which_a_click_in_the_pane_does_not_follow(tmp_path):
    app = noted_app(tmp_path, NOTE)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)
        listed = [(link.label, link.url) for link in app.screen.links]
        assert ("In your note", "https://example.org/baseline") in listed
        assert ("In your note", "https://example.org/code") in listed
        assert listed[-1][0].startswith("Search")  # the web search stays last


async def test_a_huge_note_is_shown_in_part_saying_how_much_more_there_is(tmp_path):
    line = "A line of a long note with **some** Markdown and a [link](https://example.org/x).\n"
    note = (line * (1_000_000 // len(line)))[:999_000]
    app = noted_app(tmp_path, note)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        plain = app.main_screen.query_one(DetailBody)._text.plain
        assert len(plain) < NOTE_SHOWN + 5_000  # before: the whole megabyte, wrapped anew for each visit
        shown = plain.index("more characters of the note")
        assert "— n opens all of it" in plain[shown:]
        left_out = int(plain[plain.rindex("…", 0, shown) + 1 : shown].replace(",", ""))
        assert 999_000 - NOTE_SHOWN <= left_out < 999_000 - NOTE_SHOWN // 2


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("#*_`[]()<>!-+|>~ \n\t1.:/ahx\x1b\x07\u202e")), max_size=200))
def test_any_note_is_drawn_without_an_error_or_a_control_character(note):
    plain = note_text(note).plain
    assert not any(char in plain for char in "\x1b\x07\u202e\t")
