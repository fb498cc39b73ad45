"""What readlist prints: an abstract made plain with its spaces normalised once, the same text."""

from __future__ import annotations

import pytest

from readlist.core.text import normalize


def test_a_plain_abstract_is_made_plain_normalising_its_spaces_once(monkeypatch):
    calls = []
    real = normalize.normalize_ws
    monkeypatch.setattr(normalize, "normalize_ws", lambda text: calls.append(text) or real(text))
    assert normalize.to_plain("We  study\ngraph rewiring at scale.") == "We study graph rewiring at scale."
    assert len(calls) == 1  # before: twice, the second time over the text the first gave back
    calls.clear()
    assert normalize.to_plain("A bound $\\alpha$ and\n**bold**  words") == "A bound α and bold words"
    assert len(calls) == 2  # a step changed the text: normalised again


@pytest.mark.parametrize(
    "text, plain",
    [
        ("wit- nessed  at {G}raph\tscale", "witnessed at Graph scale"),
        ("$\\alpha$ ~\\cite{x} and Models~(LLMs)", "α ~<cit.> and Models (LLMs)"),
        ("see https://x.org/a_b~c and *emph*", "see https://x.org/a_b~c and emph"),
        ("a \x1b[31mred\x1b[0m \u202e word\u2003 here ", "a red word here"),
        ("e\u0301t\xe9  caf\u0065\u0301", "été café"),
        ("$5 and $6 per item, \\emph{x}", "$5 and $6 per item, x"),
    ],
)
def test_to_plain_gives_the_text_it_gave(text, plain):
    assert normalize.to_plain(text) == plain
