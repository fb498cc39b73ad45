"""Derived titles: lead with the paper's own name and its gist, else its core claim; one line, <= 90 chars."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readlist.core.papers.reader import read_papers
from readlist.core.text.normalize import to_plain
from readlist.core.titles.clauses import first_clause
from readlist.core.titles.compose import compose, ing_form
from readlist.core.titles.derive import MAX_TITLE, cut, derive_title
from readlist.core.titles.rules import fix_articles

ICML = Path(__file__).resolve().parents[1] / "data" / "icml2025.txt"

SPD = (
    "With the rapid expansion in the scale of large language models (LLMs), enabling efficient distributed "
    "inference across multiple computing units has become increasingly critical. However, communication "
    "overheads from popular distributed inference techniques such as Tensor Parallelism pose a significant "
    "challenge to achieve scalability and low latency. Therefore, we introduce a novel optimization technique, "
    "Sync-Point Drop (SPD), to reduce communication overheads in tensor parallelism by selectively dropping "
    "synchronization on attention outputs. In detail, we first propose a block design that allows execution "
    "to proceed without communication through SPD."
)
DREAMAD = to_plain(
    "Multi-Agent Debate (MAD) has emerged as an alternative, but we identify two key limitations. To "
    "systematically evaluate these issues, we introduce $\\textit{MetaNIM Arena}$, a benchmark designed to "
    "assess LLMs in adversarial strategic decision-making. To overcome MAD's limitations, we propose "
    "**DReaMAD** (Diverse Reasoning via Multi-Agent Debate with Refined Prompt), a novel framework that "
    "refines LLMs' strategic prior knowledge. Empirical results show that **DReaMAD** significantly improves "
    "decision accuracy."
)
METAEMS = (
    "The building sector is one of the largest contributors to global energy consumption. Energy management "
    "systems (EMS) play a key role in monitoring and controlling building appliances. However, most RL-based "
    "EMS methods require a large number of training steps. This paper introduces MetaEMS, a meta-reinforcement "
    "learning framework for EMS. MetaEMS improves learning efficiency by transferring knowledge between tasks."
)
POISONBENCH = (
    "Preference learning is a central component for aligning current LLMs, but this process can be vulnerable "
    "to data poisoning attacks. To address this concern, we introduce PoisonBench, a benchmark for evaluating "
    "large language models' susceptibility to data poisoning during preference learning. Data poisoning "
    "attacks can manipulate large language model responses to include hidden malicious content or biases."
)
RLEDIT = (
    "Model editing addresses this challenge by modifying model parameters without retraining. To address "
    "this, we observed that hypernetwork-based lifelong editing aligns with reinforcement learning modeling "
    "and proposed RLEdit, an RL-based editing method. By treating editing losses as rewards, RLEdit adjusts "
    "the hypernetwork at each step."
)
CALLED = (
    "Retrieval is slow for long documents. We present a retrieval method called QuickSeek that indexes "
    "passages by their summaries. QuickSeek is three times faster than dense retrieval."
)
CLAIM = (
    "Contrastive learning is a highly successful technique for learning representations of data from "
    "labeled tuples, specifying the distance relations within the tuple. We study the sample complexity of "
    "contrastive learning, i.e. the minimum number of labeled tuples sufficient for getting high "
    "generalization accuracy. We give tight bounds on the sample complexity in a variety of settings."
)
NO_CLAIM = (
    "With the rise of mobile sensing, battery life has become the main constraint on continuous health "
    "monitoring in everyday settings. Duty cycling the sensors halves the energy used per day."
)


def _is_clean(title: str) -> bool:
    return not any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in title)


QUOTED = (
    "Small datasets make offline reinforcement learning overfit. To address this challenge, we introduce "
    '"Sparse-Reg": a regularization technique based on sparsity to mitigate overfitting in offline RL.'
)
CALLED_LAST = (
    "Training in low precision is hard. We design an optimal technique in terms of accuracy-vs-computation, "
    "called Quartet. We implement Quartet using optimized CUDA kernels."
)
UNSPACED = (
    "Multimodal intent recognition is hard. This paper presents a novel Wavelet-Driven Multimodal Intent "
    "Recognition(WDMIR) framework that enhances intent understanding through frequency-domain analysis."
)


@pytest.mark.parametrize(
    ("plain", "start"),
    [
        (SPD, "SPD: Sync-Point Drop for reducing communication overheads in tensor parallelism"),
        (DREAMAD, "DReaMAD: Diverse Reasoning via Multi-Agent Debate with Refined Prompt"),
        (METAEMS, "MetaEMS: Meta-reinforcement learning framework for"),
        (POISONBENCH, "PoisonBench: Benchmark for evaluating large language models"),
        (RLEDIT, "RLEdit: RL-based editing method"),
        (CALLED, "QuickSeek: "),
        (UNSPACED, "WDMIR: Wavelet-Driven Multimodal Intent Recognition"),
        (QUOTED, "Sparse-Reg: Regularization technique based on sparsity"),
        (CALLED_LAST, "Quartet: "),
    ],
)
def test_title_leads_with_the_papers_own_name(plain, start):
    assert derive_title(plain).startswith(start)


def test_name_used_most_wins_over_a_side_contribution():
    # MetaNIM Arena is introduced first, but DReaMAD is the paper's method and is named again.
    assert not derive_title(DREAMAD).startswith("MetaNIM")


def test_abbreviation_in_the_gist_is_spelled_out_from_the_abstract():
    assert derive_title(METAEMS) == "MetaEMS: Meta-reinforcement learning framework for energy management systems"


def first_sentence(plain: str) -> str:
    """What a title must not be: the abstract cut at its first sentence end."""
    return re.split(r"(?<=[.!?])\s+(?=[A-Z])", plain.strip(), maxsplit=1)[0].rstrip(".")


def test_without_a_name_the_title_is_the_core_claim_not_the_first_sentence():
    title = derive_title(CLAIM)
    assert title == "The sample complexity of contrastive learning"
    assert not title.startswith(first_sentence(CLAIM)[:30])


def test_without_a_claim_the_scene_setting_opener_is_dropped():
    assert (
        derive_title(NO_CLAIM)
        == "Battery life has become the main constraint on continuous health monitoring in everyday…"
    )


def test_a_title_case_phrase_called_by_a_short_name_is_its_expansion():
    plain = (
        "Long prompts are slow. We propose an Adaptive Token Pruning Framework, called ATPF, which drops "
        "unimportant tokens early in the network."
    )
    assert derive_title(plain).startswith("ATPF: Adaptive Token Pruning Framework")


def test_a_claim_title_leads_with_the_term_the_abstract_defines_and_uses_most():
    plain = (
        "Spoken language understanding (SLU) maps speech to meaning. SLU models are large and slow on "
        "phones. We present an approach that distils a teacher into a small student. SLU accuracy "
        "stays within one point while latency halves."
    )
    title = derive_title(plain)
    assert title == "Spoken language understanding: an approach distilling a teacher into a small student"


def test_field_vocabulary_does_not_become_the_topic():
    plain = (
        "Large language models (LLMs) are widely used. LLMs hallucinate. We study how retrieval changes "
        "the answers of LLMs about rare entities."
    )
    assert not derive_title(plain).lower().startswith("large language models:")


def test_the_method_answering_the_problem_leads_and_the_benchmark_that_exposed_it_follows():
    plain = (
        "Agents fail on long tasks. We introduce LongTrek, a benchmark of 500 long tasks, and find that agents "
        "forget their plans. To address this, we propose PlanKeeper, a memory module that rewrites the plan "
        "at every step. PlanKeeper doubles success on LongTrek."
    )
    assert derive_title(plain).startswith("PlanKeeper and LongTrek: Memory module rewriting the plan")


def test_field_acronyms_are_not_taken_for_the_papers_name():
    plain = (
        "Large language models (LLMs) are widely used. LLMs hallucinate. We study how LLMs answer questions "
        "about rare entities and find that LLMs guess when unsure."
    )
    assert not derive_title(plain).startswith("LLM")


def test_long_titles_are_cut_at_a_word_boundary_within_the_limit():
    plain = "We propose Longformerish, a framework that " + " ".join(f"word{n}" for n in range(60)) + " and more."
    title = derive_title(plain)
    assert len(title) <= MAX_TITLE
    assert title.endswith("…")
    words = title[:-1].split(" ")
    assert words[-1].startswith("word") and words[-1] in plain.split(" ")  # a whole word, not a piece


def test_cut_keeps_short_text_and_cuts_long_text_at_a_space():
    assert cut("short title") == "short title"
    text = "alpha " * 30
    result = cut(text, 40)
    assert len(result) <= 40 and result.endswith("…") and result[:-1].split() == ["alpha"] * len(result[:-1].split())


@pytest.mark.parametrize("plain", ["", "   ", "x", "Hi.", "A.", "(", "We propose", "We propose X", "LLM (LLM)"])
def test_empty_and_tiny_input_never_raises(plain):
    title = derive_title(plain)
    assert len(title) <= MAX_TITLE and _is_clean(title)
    if not plain.strip():
        assert title == ""


def test_huge_input_is_handled_quickly_and_within_the_limit():
    plain = (SPD + " ") * (5_000_000 // len(SPD))
    title = derive_title(plain)
    assert title.startswith("SPD: Sync-Point Drop")
    assert len(title) <= MAX_TITLE


def test_control_characters_and_newlines_never_reach_the_title():
    plain = "We propose Foo\x1b[31mBar,\na framework\tthat\x07 does\r\nthings\x00 well. " * 3
    title = derive_title(plain)
    assert _is_clean(title) and "\x1b" not in title and "\n" not in title
    assert title.startswith("Foo")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=600))
def test_any_text_gives_a_clean_title_within_the_limit(plain):
    title = derive_title(plain)
    assert len(title) <= MAX_TITLE
    assert _is_clean(title)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["We", "propose", "introduce", "X", "(X)", "Foo-Bar", "called", "a", "framework", ",", ".", "LLMs", "the"]
        ),
        max_size=60,
    )
)
def test_abstract_like_word_salad_never_raises(words):
    title = derive_title(" ".join(words))
    assert len(title) <= MAX_TITLE and _is_clean(title)


def test_bundled_icml_titles_lead_with_their_method_names():
    papers = read_papers(ICML).papers
    titles = [paper.title for paper in papers]
    assert titles[0].startswith("SPD: Sync-Point Drop")
    assert titles[1].startswith("DReaMAD")
    assert all(len(t) <= MAX_TITLE and _is_clean(t) for t in titles)
    # no title is simply the first sentence cut off
    assert sum(t.rstrip("…") in p.plain[: len(t)] for t, p in zip(titles, papers, strict=True)) == 0


def test_a_name_used_once_in_passing_does_not_join_the_paper_name():
    plain = (
        "Retrieval is slow for long documents. We present a retrieval method called QuickSeek that indexes "
        "passages by their summaries. QuickSeek is three times faster than dense retrieval on MSMarcoV2."
    )
    assert derive_title(plain).startswith("QuickSeek: ")


def test_a_generic_noun_and_its_relative_clause_become_what_the_method_does():
    plain = (
        "Long contexts are costly. We propose FoldKV, a framework that effectively compresses the key-value cache "
        "of long-context transformers. FoldKV halves memory."
    )
    assert derive_title(plain) == "FoldKV: Compressing the key-value cache of long-context transformers"


def test_relative_clauses_and_purpose_glue_are_composed_into_title_phrases():
    assert compose("a benchmark that evaluates agents on tax forms") == "a benchmark evaluating agents on tax forms"
    assert compose("a detector which can provide answers") == "a detector providing answers"
    assert compose("a model which can provide answers") == "providing answers"  # "model" says nothing more
    assert compose("a pipeline designed to detect fraud") == "a pipeline to detect fraud"
    assert compose(", a method to reduce drift in sensors") == " for reducing drift in sensors"


def test_that_introducing_a_clause_is_left_alone():
    assert (
        compose("a theory showing that neural networks generalise")
        == "a theory showing that neural networks generalise"
    )
    assert compose("the claim that the models are fair") == "the claim that the models are fair"


@pytest.mark.parametrize(
    ("verb", "ing"),
    [
        ("reduces", "reducing"),
        ("applies", "applying"),
        ("matches", "matching"),
        ("provide", "providing"),
        ("addresses", "addressing"),
        ("learns", "learning"),
        ("maps", "mapping"),
        ("sees", "seeing"),
    ],
)
def test_ing_form(verb, ing):
    assert ing_form(verb) == ing


def test_claims_of_being_first_or_comprehensive_are_dropped_but_ordinals_stay():
    plain = (
        "Agents forget. We introduce TaxBench, the first comprehensive benchmark for agents that fill in tax "
        "forms. TaxBench has 500 forms."
    )
    assert derive_title(plain) == "TaxBench: Benchmark for agents that fill in tax forms"
    plain = "Decoding is slow. We show that the first layer of a transformer predicts the next token well."
    assert "first layer" in derive_title(plain)


def test_a_described_technique_after_an_expansion_becomes_what_it_is_for():
    assert compose(", a lightweight training-free technique for hallucination detection") == (
        " for hallucination detection"
    )
    assert compose(" to further enhance reasoning in language models") == " for enhancing reasoning in language models"


def test_a_name_with_a_decimal_size_is_kept_whole():
    plain = (
        "Medical models are large. We present Foundation-1.7B, a compact model for reading radiology reports. "
        "Foundation-1.7B beats larger models."
    )
    assert derive_title(plain).startswith("Foundation-1.7B: ")


def test_a_name_said_only_to_be_a_benchmark_gets_the_setting_it_is_for():
    plain = (
        "Large language models (LLMs) answer science questions. LLMs are rarely tested on images. We introduce "
        "SciPix, a challenging benchmark. SciPix has 900 questions that LLMs fail."
    )
    assert derive_title(plain) == "SciPix: Challenging benchmark for large language models"


def test_no_setting_after_an_expansion_or_a_verb_phrase():
    expanded = (
        "Large language models (LLMs) are everywhere. LLMs still fail at tabular data. We revisit the Support "
        "Vector Machine (SVM) and show that LLMs with an SVM head classify tables well."
    )
    assert "for large language models" not in derive_title(expanded)
    verb = (
        "Large language models (LLMs) learn many tasks at once. LLMs suffer when task gradients conflict. We "
        "propose SafeGrad, employing gradient surgery. SafeGrad helps LLMs keep safety."
    )
    title = derive_title(verb)
    assert title.startswith("SafeGrad: ") and "for large language models" not in title


def test_first_is_dropped_only_where_it_is_a_claim():
    named = "Code is hard to fix. We design the first deep research agent for code, called CodeSeer, for repairs."
    assert derive_title(named).startswith("CodeSeer: Deep research agent for code")
    plain = "Math solvers err early. We show that locating the first error step matters most for verifiers."
    assert "first error step" in derive_title(plain)
    clause = first_clause("Recent work has developed, for the first time, a method for counterfactual text generation")
    assert "for the first time" in clause


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("a LLM agent", "an LLM agent"),
        ("an RAG pipeline", "a RAG pipeline"),
        ("a one-layer model", "a one-layer model"),
        ("an user study", "a user study"),
        ("a approach", "an approach"),
        ("A SVM head", "An SVM head"),
    ],
)
def test_articles_follow_the_sound_of_the_next_word(text, fixed):
    assert fix_articles(text) == fixed


def test_a_title_starting_with_a_greek_letter_keeps_it_lower_case():
    text = r"We analyse $\epsilon$-greedy policies in reinforcement learning with function approximation."
    title = derive_title(to_plain(text))
    assert title.startswith("ε-greedy policies"), title
    assert derive_title("über-fast sorting of long lists is studied in this paper.").startswith("Über")
    assert derive_title("метод сортировки длинных списков изучается в этой статье.").startswith("Метод")


def test_a_chinese_abstract_gets_its_first_sentence_as_wide_as_a_latin_title():
    title = derive_title("本文提出了一种新的探索方法，用于深度强化学习中的稀疏奖励问题。我们在多个基准上验证了它。")
    assert title == "本文提出了一种新的探索方法，用于深度强化学习中的稀疏奖励问题"
    long = derive_title("大型语言模型在许多任务上表现出色" * 5 + "。第二句。")
    assert len(long) == 45 and long.endswith("…")


def test_a_formula_in_a_clause_goes_with_the_letter_it_is_written_against():
    clause = first_clause("An algorithm attaining a sample complexity of O(d/ε^2) trajectories for RL")
    assert clause == "An algorithm attaining a sample complexity of trajectories for RL"  # not "of O trajectories"
    assert first_clause("A model (SPD) in a (small) setting") == "A model in a setting"


def test_a_dotted_name_is_one_name_and_a_dataset_link_names_the_dataset_not_its_owner():
    dotted = "We present OnPrem.LLM, a Python-based toolkit for applying large language models (LLMs) offline."
    assert derive_title(dotted).startswith("OnPrem.LLM: ")  # not "OnPrem: .large language model"
    glued = "We propose MDGCL.In the pre-training stage, we design a contrastive strategy for graphs."
    assert not derive_title(glued).startswith("MDGCL.In")  # a missing space after a full stop
    linked = (
        "We build a benchmark for nursing value alignment with five core values. "
        "The data are at https://huggingface.co/datasets/Ben012345/NurValues."
    )
    assert derive_title(linked).startswith("NurValues: ")  # not the account name "Ben012345"


def test_a_number_is_never_taken_for_the_papers_name():
    text = "We curate 105 evaluation scenarios using smartphone skin photos to test clinical assistants."
    assert not derive_title(text).startswith("105:")  # before: "105: Evaluation scenarios using…"


@pytest.mark.parametrize(
    ("plain", "used"),
    [
        (
            "A key problem is how to select the sequence of tokens of a prompt: in this paper we formulate it as a "
            "combinatorial optimization problem. In this paper we propose a Bayesian optimization method, executed "
            "in a continuous embedding of the combinatorial space. In this paper we use BoTorch, a library for "
            "Bayesian optimization research built on top of pyTorch. Albeit preliminary, results are encouraging.",
            "BoTorch",
        ),
        (
            "We present a novel approach to symbolic regression using vision-capable large language models. The free "
            "parameters of the ansatz are fitted using standard numerical optimisers. By using Kolmogorov Arnold "
            "Networks (KANs), we demonstrate that univariate is all you need for symbolic regression, and extend this "
            "method to multivariate functions by learning the univariate function on each edge of a trained KAN.",
            "KAN",
        ),
        (
            "We assess how modern LLMs perform on CaseHOLD, a legal benchmark dataset for identifying case holdings. "
            "Our experiments demonstrate scaling effects on CaseHOLD, and a citation anonymization test.",
            "CaseHOLD",
        ),
    ],
    ids=["a library", "a network kind", "a benchmark"],
)
def test_a_title_does_not_lead_with_a_tool_or_dataset_the_paper_merely_uses(plain, used):
    assert not derive_title(plain).startswith(used)


def test_a_resource_the_paper_makes_and_then_uses_still_leads_its_title():
    plain = (
        "Honesty is hard to train. Using DolusChat, a novel 65k-example dataset of paired truthful and deceptive "
        "responses, we study lie detectors in preference learning. DolusChat shows that detectors can induce honesty."
    )
    assert derive_title(plain).startswith("DolusChat")
