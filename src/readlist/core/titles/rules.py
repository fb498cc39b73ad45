"""Patterns for deriving titles: how abstracts announce what they contribute and how they name it.

Everything here is about English academic phrasing, not about any particular paper: the verbs
that announce a contribution ("we propose ..."), how a name is introduced ("called X", "X, a ...",
"Expansion (X)"), where a clause ends and which words are filler. What a coined name looks like
is in `title_acronyms`.

Speed matters (every paper of a 100k list is titled when the search index is built), so the
patterns are anchored: cheap `str.find` calls locate "we", "this paper", "called", ... and the
regexes only run at those places.
"""

from __future__ import annotations

import re

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
    r"technical report|note|chapter|review|dissertation|manuscript|project|proposal|tutorial|demo paper|"
    r"short paper)|here,? we"
)
# Matched on the lower-cased text where a subject starts; the verb is looked up in VERB_BASE.
CLAIM_AT = re.compile(rf"(?:{_SUBJECT})(?:,? (?:{_ADVERBS}))*,? ([a-z][a-z\-]+)[ ,]*")
PARTICLES = ("on ", "to ", "forward ")
# Places where a claim may start besides " we ": the word, and how the next word must begin.
# ("by introducing X" is left out: it comes after a "we" claim, which already leads to X.)
_THIS_NOUNS = (
    "paper",
    "work",
    "study",
    "article",
    "letter",
    "thesis",
    "report",
    "research",
    "survey",
    "position",
    "project",
    "proposal",
    "tutorial",
    "demo paper",
    "short paper",
)
SUBJECT_STARTS = (
    (" this ", _THIS_NOUNS),
    (" and propos", ("",)),
    (" and introduc", ("",)),
)
# Before a claim in its sentence: the contribution answers the problem just stated.
RESPONSE_CUE = re.compile(
    r"to (?:address|overcome|tackle|mitigate|solve|bridge|fill|remedy|alleviate|resolve|this end)|building on|"
    r"motivated by|in response"
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
# Before a name the paper merely uses: "we use BoTorch, a library", "evaluated on CaseHOLD", "by using Kolmogorov
# Arnold Networks (KANs)", "compared with EAGLE2", "models such as DistilBERT" (matched on the lower-cased text up to
# the name, or to its spelled-out form).
USED_BEFORE = re.compile(
    r"\b(?:us(?:e|es|ed|ing)|use of|with|on|upon|than|such as|including|like|e\.g\.,?|compared (?:with|to)|"
    r"against|integrat\w*|leverag\w*|adopt\w*|employ\w*|apply\w*|applied to|extend\w*|fine-?tun\w*|"
    r"built (?:on|upon)|based on|implemented (?:with|using))"
    r"(?: (?:the|a|an|two|three|several|existing|popular|standard|widely[- ]used|well[- ]known|established|recent|"
    r"recently|representative|prominent|classic|classical|traditional|conventional|open-source|pre-?trained|"
    r"state-of-the-art|benchmark|benchmarks|dataset|datasets|model|models|baseline|baselines|foundation|large|"
    r"language|evaluation|multilingual|real-world|domain-specific|public|publicly|available|simulator|library)){0,5}"
    r" $"
)
# "the real-world network user dataset UNSW-NB15", "models BioBERT and SciBERT": a resource named as one the paper
# works with (not "the proposed model X", "the resulting dataset, X").
RESOURCE_BEFORE = re.compile(
    r"(?:\b(?:the|two|three|several|multiple|public|open)(?: (?!proposed|resulting|new|novel)[\w\-]+){0,4} "
    r"(?:dataset|benchmark|model|simulator|corpus|library|tool|platform)|"
    r"\b(?:datasets|benchmarks|models|simulators|corpora|libraries|tools|platforms|baselines))[,:]? $"
)
NEW_AFTER = re.compile(r"(?:,|:| is| \([^()]{1,80}\),?) (?:an?|the) (?:[\w\-]+ )?(?:new|novel|first)\b")
# After a spelled-out acronym, a noun saying what kind of thing it is: "a Deep Reinforcement Learning (DRL) approach"
# names a kind of method, not the paper's.
KIND_AFTER = re.compile(r" ?(?:-based|based|" + "|".join(sorted(DESCRIPTOR_NOUNS, key=len, reverse=True)) + r")\b")
REPOSITORY = re.compile(
    r"(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co(?:/datasets|/spaces)?)/[\w.\-]+/([\w.\-]+?)(?:\.git)?(?:[/)\s,;]|$)"
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
    r"[;:] |\.(?<! vs\.)(?<! al\.) |, and,|,(?: (?:which|where|while|whereas|but|thereby|achieving|resulting|leading|"
    r"yielding|outperforming|enabling us|showing|demonstrating|including|such as|as well as)\b| (?:e\.g\.|i\.e\.)|"
    r" and (?:we\b|it\b|" + _AND_VERB + r"))"
    r"| (?:—|–|- |and " + _AND_VERB + r"|e\.g\.|i\.e\.|such as\b|as well as\b|\((?:e\.g\.|i\.e\.|see\b|cf\.|https?:))"
)
# A parenthetical, with the letter it is written against when it is a formula: "of O(n) trajectories".
PAREN = re.compile(r"(?:\s+[^\W\d_]{1,2}(?=\())?\s*\([^()]*\)")
# A cheap test (faster than a case-insensitive regex) before FLUFF runs.
FLUFF_HINTS = tuple(
    "novel|new |innovat|simple|effective|powerful|unified|first-of|principled|versatile|elegant|straightforward|"
    "plug-and|designed|comprehensive".split("|")
)
FLUFF_ADVERBS = ("effectively", "significantly", "substantially", "seamlessly", "considerably", "remarkably", "greatly")
FLUFF = re.compile(
    r"\b(?:novel|new|innovative|comprehensive|simple(?: yet| but)? effective|simple|efficient and effective|powerful|"
    r"unified|first-of-its-kind|principled|versatile|elegant|straightforward|plug-and-play|"
    r"carefully designed|well-designed|effectively|significantly|substantially|seamlessly|considerably|"
    r"remarkably|greatly)(?:,| and)? ",
    re.IGNORECASE,
)
# "the first large-scale benchmark" -> "a large-scale benchmark", but "the first layer", "the first error step",
# "for the first time": only before a contribution noun, with at most four modifiers between.
FIRST = re.compile(
    r"\b([Tt])he first(?:-ever| ever)? (?=(?:(?!(?:a|an|the|time|step|stage|layer|token|round|phase|part|half)\b)"
    r"[\w\-]+ ){0,4}?(?i:benchmark|dataset|corpus|study|framework|method|approach|model|system|work|attempt|"
    r"investigation|analysis|survey|library|toolkit|tool|evaluation|algorithm|platform|suite|testbed|pipeline|"
    r"effort|application|implementation|demonstration|agent|attack|task|simulator|environment|architecture|"
    r"database|resource|metric|protocol|theory|technique|strategy|mechanism|paradigm|network|[MV]?LLM|VLM|audit|"
    r"review|case|characteri[sz]ation|simulation|benchmarking|comparison|deployment|exploration|assessment|"
    r"examination|controller|runtime)s?\b)"
)
ARTICLE = re.compile(r"\b([Aa]n?) (?=([\w\-]+))")
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
THAT_FILLER = re.compile(r"^(?:that|how|whether),?\s+(?=\S)", re.IGNORECASE)


def fix_articles(text: str) -> str:
    """'a approach' -> 'an approach' after adjectives were dropped; by sound ('a one-layer', 'an LLM')."""

    def fix(match: re.Match[str]) -> str:
        article, word = match.group(1), match.group(2)
        want = "an" if _vowel_sound(word) else "a"
        return (want.capitalize() if article[0] == "A" else want) + " "

    return ARTICLE.sub(fix, text)


_CONSONANT_SOUND = ("one", "once", "uni", "use", "usu", "uti", "eu", "ubi", "ure")
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")
_VOWELS = frozenset("AEIOUY")  # letters whose names start with a vowel sound: "an LLM", "an SVM"


def _vowel_sound(word: str) -> bool:
    letters = word.split("-", 1)[0]
    if len(letters) > 1 and letters.isupper() and not _VOWELS.intersection(letters[1:]):
        return letters[0] in _VOWEL_LETTERS  # read letter by letter: "an LLM", "an SVM", but "a RAG"
    low = word.lower()
    if low.startswith(("hour", "honest", "honor", "honour")):
        return True
    return low[:1] in "aeiou" and not low.startswith(_CONSONANT_SOUND)
