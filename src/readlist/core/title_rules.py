"""Patterns for deriving titles: how abstracts announce what they contribute and how they name it.

Everything here is about English academic phrasing, not about any particular paper: the verbs
that announce a contribution ("we propose ..."), how a coined name looks (CamelCase, ALLCAPS,
"...Bench"), how it is introduced ("called X", "X, a ...", "Expansion (X)") and which
acronyms are the field's common vocabulary rather than a paper's own name.

Speed matters (every paper of a 100k list is titled when the search index is built), so the
patterns are anchored: cheap `str.find` calls locate "we", "this paper", "called", ... and the
regexes only run at those places.
"""

from __future__ import annotations

import re
from functools import lru_cache

# The contribution verbs. MAKE verbs announce an artefact, whose name usually follows.
MAKE_VERBS = frozenset(
    """propose introduce present develop design build release construct curate create offer contribute
    formulate devise describe unveil implement provide establish collect train open-source""".split()
)
STUDY_VERBS = frozenset(
    """study investigate examine explore analyze analyse evaluate show demonstrate prove find argue address
    tackle consider revisit benchmark characterize characterise quantify derive identify focus report assess
    compare survey review discuss highlight reveal extend leverage use apply aim seek test""".split()
)
THAT_VERBS = frozenset({"show", "demonstrate", "prove", "find", "argue", "report", "reveal", "highlight"})


def _forms(verb: str) -> dict[str, str]:
    """'propose' -> proposes, proposed, proposing; 'study' -> studies, studied, studying."""
    if verb.endswith("e"):
        forms = [verb, verb + "s", verb + "d", verb[:-1] + "ing"]
    elif verb.endswith("y") and verb[-2] not in "aeiou":
        forms = [verb, verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"]
    elif verb in ("find", "build", "seek"):
        forms = [verb, verb + "s", {"find": "found", "build": "built", "seek": "sought"}[verb], verb + "ing"]
    else:
        forms = [verb, verb + ("es" if verb.endswith(("sh", "ch", "ss")) else "s"), verb + "ed", verb + "ing"]
    return dict.fromkeys(forms, verb)


VERB_BASE: dict[str, str] = {form: base for verb in MAKE_VERBS | STUDY_VERBS for form, base in _forms(verb).items()}
_ADVERBS = (
    r"also|further|then|first|therefore|thus|hence|instead|now|here|newly|systematically|comprehensively|"
    r"carefully|formally|empirically|theoretically|additionally|finally|subsequently|primarily|mainly|"
    r"specifically|rigorously|experimentally|in this (?:paper|work|study)|have|has|will|can|,"
)
_SUBJECT = (
    r"we|and|this (?:paper|work|study|article|letter|thesis|report|research|survey|position paper|"
    r"technical report|note|chapter|review|dissertation|manuscript|project)|here,? we"
)
# Matched on the lower-cased text where a subject starts; the verb is looked up in VERB_BASE.
CLAIM_AT = re.compile(rf"(?:{_SUBJECT})(?:,? (?:{_ADVERBS}))*,? ([a-z][a-z\-]+)[ ,]*")
PARTICLES = ("on ", "to ", "forward ")
# Places where a claim may start besides " we ": the word, and how the next word must begin.
# ("by introducing X" is left out: it comes after a "we" claim, which already leads to X.)
_THIS_NOUNS = ("paper", "work", "study", "article", "letter", "thesis", "report", "research", "survey", "position")
SUBJECT_STARTS = (
    (" this ", _THIS_NOUNS),
    (" and propos", ("",)),
    (" and introduc", ("",)),
)
NAMING_WORDS = ("called ", "named ", "dubbed ", "termed ", "namely ", "referred to as ", "known as ")
WE_NAMING = (
    "call it ",
    "call ",
    "name it ",
    "name ",
    "term it ",
    "term ",
    "dub it ",
    "dub ",
    "refer to it as ",
    "coin ",
)
# The noun a name is put in apposition to: "a new benchmark, X" or "a framework called X".
DESCRIPTOR_NOUNS = frozenset(
    """framework method approach model benchmark dataset system algorithm technique architecture pipeline tool
    library metric agent paradigm strategy module toolkit suite corpus platform protocol scheme network
    mechanism solver simulator environment language estimator policy procedure recipe family series collection
    test evaluation variant extension version planner optimizer loss objective attack defense defence detector
    generator encoder decoder transformer engine interface assistant analysis measure index score resource
    task challenge database testbed arena game methodology formulation regularizer technology application
    prompt prompting benchmarks datasets models methods frameworks set""".split()
)
DESCRIPTOR_LISTS = [[noun] for noun in DESCRIPTOR_NOUNS]  # to compare with a one-word slice of split()
# After a coined name: "X, a ...", "X is the first ...", "X: a ...".
APPOSITION_AFTER = re.compile(r"(?:,|:| is| \([^()]{4,80}\)(?:,| is)) (?:an?|the first|the) ")
REPOSITORY = re.compile(
    r"(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co)/[\w.\-]+/([\w.\-]+?)(?:\.git)?(?:[/)\s,;]|$)"
)
_LINK_WORDS = frozenset({"called", "named", "dubbed", "termed", "namely", "coined", "as"})


def descriptor_before(low_before: str) -> bool:
    """Does the text before a name end with a descriptor noun: 'a new benchmark, ' or 'a method called '?"""
    if low_before.endswith("("):
        return False  # "foundation models (GFMs)": a definition, not an apposition
    words = low_before.rstrip(" \"“'").split()
    if words and words[-1] in _LINK_WORDS:
        words.pop()
    return bool(words) and words[-1].rstrip(",") in DESCRIPTOR_NOUNS


# Coined-looking tokens: an uppercase letter followed later by another uppercase letter or digit
# ("eSkinHealth" is seen as "SkinHealth": a leading lowercase letter would slow the scan down).
COINED = re.compile(r"[A-Z][A-Za-z0-9+\-²³]*[A-Z0-9][A-Za-z0-9+\-²³]*")
NAME_PHRASE = re.compile(
    r"(?:[A-Z0-9]|[a-z]+[A-Z])[\w+'’\-²³]*(?:\.\d+)?"
    r"(?: (?:[A-Z0-9][\w+'’\-²³]*|v\d[\w.]*|of|for|and|the|in|on|with|to|a|via|from|as|is|"
    r"not|all|you|or|vs\.?|at|by|my|your|it|no|more|than|what|do|does|can|&)){0,6}"
)
ACRONYM_PAREN = re.compile(r" \(([A-Za-z0-9][A-Za-z0-9+\-²³]*)(?:s)?\)")
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

# Pieces of a gist.
APPOSITIVE = re.compile(r"^(?:,|:|—|–| -| --)?\s*(?:which is |that is |i\.e\.,? )?(an?|the|one|our) ", re.IGNORECASE)
PURPOSE = re.compile(
    r"^,?\s*((?:to|for|that|which|designed|tailored|aimed|aiming|capable|built|able|specifically|dedicated|"
    r"targeting|based|leveraging|using|with|via|as|in) )",
    re.IGNORECASE,
)
_AND_VERB = (
    r"(?:then |further |also )?(?:show|demonstrate|evaluate|achieve|find|prove|highlight|discuss|conduct|provide|"
    r"propose|introduce|present|release|compare|validate|test|use|apply|analy[sz]e|investigate|examine|explore)\b"
)
CLAUSE_END = re.compile(
    r"[;:] |\. |, and,|,(?: (?:which|where|while|whereas|but|thereby|achieving|resulting|leading|yielding|"
    r"outperforming|enabling us|showing|demonstrating|including|such as|as well as)\b| (?:e\.g\.|i\.e\.)|"
    r" and (?:we\b|it\b|" + _AND_VERB + r"))"
    r"| (?:—|–|- |and " + _AND_VERB + r"|e\.g\.|i\.e\.|such as\b|as well as\b|\((?:e\.g\.|i\.e\.|see\b|cf\.|https?:))"
)
PAREN = re.compile(r"\s*\([^()]*\)")
FLUFF_HINTS = (
    "novel",
    "new ",
    "innovat",
    "simple",
    "effective",
    "powerful",
    "unified",
    "first-of",
    "principled",
    "versatile",
    "elegant",
    "straightforward",
    "plug-and",
    "designed",
)
FLUFF = re.compile(
    r"\b(?:novel|new|innovative|simple(?: yet| but)? effective|simple|efficient and effective|powerful|"
    r"unified|first-of-its-kind|principled|versatile|elegant|straightforward|plug-and-play|"
    r"carefully designed|well-designed)(?:,| and)? ",
    re.IGNORECASE,
)
ARTICLE = re.compile(r"\b([Aa]n?) (?=(\w))")
# Openers that set the scene before the main clause ("With the rise of X, ...").
SCENE = re.compile(
    r"^(?:with|as|while|although|though|despite|given|since|due to|in recent years|recently|nowadays|"
    r"today|over the past|in the (?:era|age|context|field|realm) of|in this (?:paper|work))\b[^,]{0,160}, ",
    re.IGNORECASE,
)
# "this gap by", "these challenges with": the claim is what comes after.
BY_MEANS = re.compile(
    r"(?:this|these|the|that|those|such|both|all|each|two|three|several)(?: [\w\-]+){0,3}? (?:problems?|challenges?|"
    r"gaps?|issues?|limitations?|questions?|shortcomings?|difficult(?:y|ies)|concerns?|needs?|bottlenecks?|"
    r"tasks?|goals?|aims?|objectives?|drawbacks?|obstacles?|deficienc(?:y|ies)|tensions?|trade-offs?)"
    r"(?: [\w\-]+){0,4}? (?:by|with|through|via|using|in) ",
    re.IGNORECASE,
)
ANAPHORA = (
    "the following ",
    "the same ",
    "this ",
    "these ",
    "those ",
    "it ",
    "they ",
    "them ",
    "such ",
    "both ",
    "its ",
    "their ",
)
PREPOSITION = re.compile(r" (?:to|for|of|on|in|with|by|from|into|towards?) ")
# A verb phrase right after a name: ", efficiently handles", " outperforms", " learns" (3rd person -s).
VERB_PHRASE = re.compile(r",? (?=(?:[a-z]+ly )?[a-z]{3,}s )")
MAKING = re.compile(r"(?:proposing|introducing|presenting|developing|designing|building|constructing|creating) ")
# Abbreviations in a gist that may be spelled out from the abstract's own definition.
ABBREVIATION = re.compile(r"\b[A-Z][A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*\b")
KEEP_SHORT = frozenset({"AI", "GPT", "BERT", "CLIP", "GPU", "CPU", "API", "URL", "SQL", "JSON", "PDF", "IoT"})
THAT_FILLER = re.compile(r"^(?:that|how|whether),?\s+(?=\S)", re.IGNORECASE)


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


def fix_articles(text: str) -> str:
    """'a approach' -> 'an approach' after adjectives were dropped."""

    def fix(match: re.Match[str]) -> str:
        article, letter = match.group(1), match.group(2)
        want = "an" if letter in "aeiouAEIOU" else "a"
        return (want.capitalize() if article[0] == "A" else want) + " "

    return ARTICLE.sub(fix, text)


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
