"""The display form of abstracts: LaTeX as Unicode, Markdown markers removed, hyphens repaired, links found."""

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readlist.core.papers.paper import Paper
from readlist.core.text.normalize import field_to_text, find_urls, normalize_ws, paper_id, strip_control, to_plain


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        (r"a noise level $\epsilon$ here", "a noise level ε here"),
        (r"we introduce $\textit{MetaNIM Arena}$, a benchmark", "we introduce MetaNIM Arena, a benchmark"),
        (r"about 20\% lower latency", "about 20% lower latency"),
        (r"gains of 5% and 7%", "gains of 5% and 7%"),
        (r"$\texttt{\textbf{DReaMAD}}$ ($\textbf{D}$iverse $\textbf{Rea}$soning)", "DReaMAD (Diverse Reasoning)"),
        ("we propose **DReaMAD** and *FastDiff*", "we propose DReaMAD and FastDiff"),
        ("we have wit- nessed growth on Hug- ging Face", "we have witnessed growth on Hugging Face"),
        ("both pre- and post-training", "both pre- and post-training"),
        ("- ab- cd, pre- and- post, naïve- ly", "- abcd, pre- and- post, naïve- ly"),  # a kept pair is not joined on
        ("{G}eneration of x{y}z, not \\frac{a}{b} or a_{b}c", "Generation of xyz, not a/b or a_{b}c"),
        ("line one\nline two", "line one line two"),
        (r"runs in $\mathcal{O}(\log n)$ time", "runs in 𝒪(log n) time"),
        ("Large Language Models~(LLMs) and e.g.~the rest", "Large Language Models (LLMs) and e.g. the rest"),  # ties
        ("about ~10% of users", "about ~10% of users"),  # a tilde that is not a tie stays
    ],
)
def test_plain_form(text, plain):
    assert to_plain(text) == plain


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        # `%` is a percent sign, in and out of math, not a comment dropping the rest of the line
        ("up to $65%$ storage reduction", "up to 65% storage reduction"),
        (r"an average $\textbf{10.48%}$ gain and \textbf{5%} more", "an average 10.48% gain and 5% more"),
        # a `$` before a digit is a dollar sign when its would-be math ends before another amount or holds words
        (
            "The AI interface ($0.08) also reduced costs by 98.1% compared to the physicians' average ($4.2).",
            "The AI interface ($0.08) also reduced costs by 98.1% compared to the physicians' average ($4.2).",
        ),
        (
            "costs over $100 million, yet we reach 95% of the accuracy, cutting the budget to $2 million",
            "costs over $100 million, yet we reach 95% of the accuracy, cutting the budget to $2 million",
        ),
        (r"it costs $5 per run, and $\epsilon$ stays small", "it costs $5 per run, and ε stays small"),
        (r"It costs $0.08 ($\approx$ 8 cents).", "It costs $0.08 (≈ 8 cents)."),  # unbalanced: not math
        (r"the premium tier is $ 20. We report $p < 0.05$", "the premium tier is $ 20. We report p < 0.05"),
        (r"save US$ 20 and $\delta$.", "save US$ 20 and δ."),
        # math that starts with a number, or is followed by one, still converts
        (r"$2\times$ faster, $\sim$30 ms, a $2$-approximation", "2× faster, ∼30 ms, a 2-approximation"),
        (r"up to $65\%$ with $O(n^2)$ steps and $k$-means", "up to 65% with O(n^2) steps and k-means"),
    ],
)
def test_percent_and_dollar_signs_are_kept(text, plain):
    assert to_plain(text) == plain


def test_urls_survive_latex_and_markdown_passes():
    text = r"Code at https://github.com/a_b/c_d~e and \textbf{more}."
    assert to_plain(text) == "Code at https://github.com/a_b/c_d~e and more."
    assert find_urls(text) == ("https://github.com/a_b/c_d~e",)


def test_urls_are_trimmed_of_sentence_punctuation():
    text = "See (https://example.org/x) and https://foo.io/a. Also http://bar.com/q?x=1, done"
    assert find_urls(text) == ("https://example.org/x", "https://foo.io/a", "http://bar.com/q?x=1")


def test_urls_are_found_in_any_case_back_to_back_and_at_the_start():
    text = "HTTPS://A.org/x,http://b.org/https://c.org (httpx://d.org, ://e.org) Http://f.org/a_b"
    assert find_urls(text) == ("HTTPS://A.org/x,http://b.org/https://c.org", "Http://f.org/a_b")
    emphasis = "snake_case and __init__ and 2*3 stay; **bold** goes"
    assert to_plain(emphasis) == "snake_case and init and 2*3 stay; bold goes"


def test_paper_exposes_urls_and_plain():
    paper = Paper(id=paper_id("x"), index=1, text=r"Our code: https://github.com/x/y. We use $\alpha$.")
    assert paper.urls == ("https://github.com/x/y",)
    assert "α" in paper.plain


def test_control_characters_are_stripped():
    assert strip_control("a\x1b[31mred\x07\x9b b") == "ared b"  # a colour code goes whole, a lone C1 byte alone
    # UTF-8 quotes read as Latin-1 hold C1 bytes: only those go, never the words between them
    assert strip_control("the \u00e2\x80\x9cfast\u00e2\x80\x9d baseline with the robust \u00e2\x80\x9cslow") == (
        "the \u00e2fast\u00e2 baseline with the robust \u00e2slow"
    )
    assert to_plain("bell\x07 and \x1b]0;title\x07 escape") == "bell and escape"


def test_strip_control_removes_whole_escape_sequences():
    link = "\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\"
    # a C1 byte goes alone: it is more often text in the wrong encoding than an 8-bit escape
    assert strip_control(f"a\x1b[1;31mred\x1b[0m \x1b]0;title\x07b {link} \x1b(Bc \x9b2Jd") == "ared b link c 2Jd"
    assert strip_control("unclosed \x1b]0;title\nnext line\x07") == "unclosed 0;title\nnext line"
    assert strip_control("\tnote", keep_tabs=True) == "\tnote"


def test_broken_latex_is_kept_as_written():
    assert to_plain(r"an unclosed $\frac{a}{ formula") == r"an unclosed $\frac{a}{ formula"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab é\t\n\r\x0b\x0c\u00a0\u3000e\u0301")), max_size=30))
def test_normalize_ws_matches_the_plain_definition(text):
    assert normalize_ws(text) == " ".join(unicodedata.normalize("NFC", text).split())


def test_bidi_overrides_are_stripped():
    assert strip_control("safe\u202etxt.exe\u2066x\u2069") == "safetxt.exex"


@pytest.mark.parametrize(
    ("field", "text"),
    [
        (
            r"{BERT}: Pre-training of Deep {B}idirectional Transformers",
            "BERT: Pre-training of Deep Bidirectional Transformers",
        ),
        (r"Sch{\"o}lkopf, Bernhard and M\"uller and {\'E}cole \c{c}a", "Schölkopf, Bernhard and Müller and École ça"),
        (r"Fast--Slow Thinking --- in $\epsilon$-greedy", "Fast–Slow Thinking — in ε-greedy"),
        (r"100% of \textbraceleft{}x\textbraceright{} \& more", "100% of {x} & more"),  # bare %, our export's braces
        ("  spaced\n out\x1b[31m ", "spaced out"),
        (r"an unclosed \frac{", r"an unclosed \frac{"),
    ],
)
def test_a_bibtex_field_is_read_as_latex(field, text):
    assert field_to_text(field) == text
