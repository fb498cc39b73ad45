"""Coined names and acronyms: what looks like a paper's own name ("SlimInfer", "PC-Sampler", "M3PO"),
which acronyms are the field's vocabulary rather than a name, and matching a short form to its expansion.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

# Coined-looking tokens: an uppercase letter followed later by another uppercase letter or digit
# ("eSkinHealth" is seen as "SkinHealth": a leading lowercase letter would slow the scan down).
# (The lower-case run before the second capital is possessive: the same matches, without backtracking.)
COINED = re.compile(r"[A-Z][a-z+\-²³]*+[A-Z0-9][A-Za-z0-9+\-²³]*")
NAME_PHRASE = re.compile(
    r"(?:[A-Z0-9]|[a-z]+[A-Z])[\w+'’\-²³]*(?:\.(?:\d|[A-Z][a-z]*[A-Z0-9])[\w\-]*)?"
    r"(?: (?:[A-Z0-9][\w+'’\-²³]*|v\d[\w.]*|of|for|and|the|in|on|with|to|a|via|from|as|is|"
    r"not|all|you|or|vs\.?|at|by|my|your|it|no|more|than|what|do|does|can|&)){0,6}"
)
ACRONYM_PAREN = re.compile(r" ?\(([A-Za-z0-9][A-Za-z0-9+\-²³]*)(?:s)?\)")
_HAS_UPPER_INSIDE = re.compile(r".[A-Z]")
_FAMILY = re.compile(
    r"(?:Qwen|LLaMA|Llama|GPT|Gemini|Gemma|Claude|Mistral|Mixtral|DeepSeek|Phi|Falcon|Vicuna|T5)[\d.]*(?:-|$)"
)

# Acronyms and system names that are the field's vocabulary: they appear in many abstracts and
# are almost never the paper's own contribution.
COMMON = frozenset(
    """
    AI AGI ML DL RL DRL MARL NLP NLU NLG CV LLM LM SLM MLLM VLM LVLM LMM LRM VLA FM PLM GPT
    GPU CPU TPU API GUI UI URL SQL JSON HTML XML PDF CSV IO IoT IIoT KV MLP CNN RNN LSTM GRU GNN GCN
    GAN VAE SAE MoE ViT SSM FFN MHA DiT CLIP BERT RoBERTa T5 LLaMA Llama LLaVA Qwen DeepSeek ChatGPT
    OpenAI GitHub NVIDIA Google Meta Microsoft Anthropic Claude Gemini Mistral PaLM HuggingFace
    PyTorch TensorFlow RAG CoT ToT ICL SFT RLHF RLAIF DPO PPO GRPO RLVR PEFT LoRA QLoRA KD PTQ QAT
    SOTA OOD IID QA VQA NER ASR TTS OCR MT NLI KG MDP POMDP MCTS MPC SAC DQN TD DP FL SSL
    MAS MCP EEG ECG MRI CT EHR US UK EU USA SE SWE AUC AUROC ROC MSE MAE RMSE BLEU ROUGE METEOR F1
    FLOP GSM8K MMLU MATH AIME GPQA HumanEval MBPP ImageNet COCO CIFAR MNIST MuJoCo D4RL
    ARC STEM PhD NP II III IV TL DR AR VR XR LiDAR RGB RGBD IMU GPS UAV CAV HPC SQuAD
    ReLU RELU SiLU SILU GELU GeLU
    GenAI PRM ORM RM ToM ReAct SVD PCA ODE PDE SDE KL TV L1 L2 IR MI CL GPT-4 GPT-4o GPT-3.5 GPT-3 GPT-2
    """.split()
)

# Abbreviations in a gist that may be spelled out from the abstract's own definition.
ABBREVIATION = re.compile(r"\b[A-Z][A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*\b")
KEEP_SHORT = frozenset({"AI", "GPT", "BERT", "CLIP", "GPU", "CPU", "API", "URL", "SQL", "JSON", "PDF", "IoT"})


@lru_cache(maxsize=8192)
def is_coined(token: str) -> bool:
    """Does the token look like a coined name (CamelCase, ALLCAPS, letters with digits, ...Bench)?"""
    if len(token) < 2 or token in COMMON or (token[-1] == "s" and token[:-1] in COMMON):
        return False
    parts = token.split("-")
    if len(parts) > 1 and parts[-1].islower() and len(parts[-1]) > 2:
        return False  # "BERT-based", "GPT-style": an adjective, not a name
    if _FAMILY.match(token):
        return False  # "Qwen2.5-Omni", "Llama-3-8B": an existing model of a known family
    return any(_HAS_UPPER_INSIDE.search(part) for part in parts) or any(ch.isdigit() for ch in token[1:])


def initials_match(short: str, long: str) -> bool:
    """Schwartz-Hearst: the short form's letters appear in order in the long form, first at a word start."""
    letters = [ch.lower() for ch in short if ch.isalpha()]  # "M3PO": digits count letters, they are not ones
    words = long.split()
    if not letters or len(words) > len(letters) + 5 or not long[:1].isalnum():
        return False
    low = long.lower()
    if low[0] != letters[0]:
        return False
    s, i = len(letters) - 1, len(low) - 1
    while s >= 0:
        ch = letters[s]
        while i >= 0 and (low[i] != ch or (s == 0 and i > 0 and low[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return False
        i -= 1
        s -= 1
    return True


def expansion_before(text: str, paren: int, short: str) -> str:
    """'Sync-Point Drop (SPD)': the shortest run of words before the '(' whose initials spell `short`."""
    words = text[max(0, paren - 150) : paren].split()[-12:]
    for n in range(1, len(words) + 1):
        long = " ".join(words[-n:])
        if long[:1].lower() == short[:1].lower() and initials_match(short, long):
            return long.strip(",;:")
    return ""


def coined_tokens(text: str) -> Counter[str]:
    counts = Counter(COINED.findall(text))
    for token in [t for t in counts if t[-1] == "s" and t[-2:-1].isupper()]:
        counts[token[:-1]] += counts.pop(token)
    return counts


def uses(text: str, name: str) -> int:
    """How often `name` occurs as a whole word ("PRO-V" is not used in "PRO-V-R1")."""
    count, at = 0, text.find(name)
    while at >= 0:
        end = at + len(name)
        joined_before = at > 0 and (text[at - 1].isalnum() or text[at - 1] == "-")
        after = text[end : end + 2]
        joined_after = after[:1].isalnum() or (after[:1] == "-" and after[1:].isalnum())
        if not joined_before and not joined_after:
            count += 1
        at = text.find(name, end)
    return count


def first_at(text: str, token: str) -> int:
    """Where `token` first occurs as a whole word (or -1)."""
    at = text.find(token)
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "-+"):
        at = text.find(token, at + 1)
    return at
