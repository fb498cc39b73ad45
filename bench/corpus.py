"""Seeded synthetic paper files built from the arXiv sample's sentences, in each format readlist reads.

    python bench/corpus.py 10000 100000               # writes to a temp dir and prints the paths
    python bench/corpus.py --format bibtex 10000      # the same abstracts as BibTeX (see FORMATS)

Generated files are never committed; benchmarks call `corpus_path(n)` (or `corpus_path(n, fmt)` for
another format: the same abstracts with a real title, authors, year, venue and ids each), which caches
them in the system temp dir keyed by size, seed and format.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "arxiv-cs-6k.txt"
SEED = 20250713
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def sample_path() -> Path:
    if not SAMPLE.is_file():
        raise SystemExit(f"missing {SAMPLE}: the arXiv sample lives in ../shared/data")
    return SAMPLE


def _abstracts() -> list[str]:
    text = sample_path().read_text(encoding="utf-8")
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    return paragraphs[1:]  # first paragraph is the header


def generate(n: int, seed: int = SEED) -> str:
    """An n-paper file: each abstract stitches 4-9 sentences of real abstracts, first ones first."""
    rng = random.Random(seed)
    abstracts = [_SPLIT.split(a) for a in _abstracts()]
    openers = [s[0] for s in abstracts]
    rest = [sentence for s in abstracts for sentence in s[1:]]
    out = [f"Synthetic corpus of {n} papers (seed {seed})"]
    for i in range(n):
        k = rng.randint(4, 9)
        sentences = [rng.choice(openers), *rng.sample(rest, k - 1)]
        out.append(" ".join(sentences) + f" (Ref {i}.)")
    return "\n\n".join(out) + "\n"


def records(n: int, seed: int = SEED) -> list[dict]:
    """The abstracts of `generate(n, seed)` as records: a real title of the sample, two to six authors, a year,
    a venue, an arXiv id and a DOI each (all made up but the title and the abstract)."""
    abstracts = generate(n, seed).split("\n\n")[1:]
    titles = [line.split("\t", 1)[1].strip() for line in titles_path().read_text(encoding="utf-8").splitlines()]
    rng = random.Random(seed + 1)
    out = []
    for i, abstract in enumerate(abstracts):
        out.append(
            {
                "title": rng.choice(titles),
                "abstract": abstract.strip(),
                "authors": [f"{rng.choice(_GIVEN)} {rng.choice(_FAMILY)}" for _ in range(rng.randint(2, 6))],
                "year": rng.randint(2015, 2025),
                "venue": rng.choice(_VENUES),
                "arxiv": f"{rng.randint(15, 25)}{rng.randint(1, 12):02d}.{i % 100_000:05d}",
                "doi": f"10.48550/arXiv.{i:06d}",
                "category": rng.choice(("cs.LG", "cs.AI", "cs.CL")),
            }
        )
    return out


_GIVEN = ("Ada", "Alan", "Grace", "Yoshua", "Fei-Fei", "Jürgen", "Daphne", "Andrew", "Li", "Sanjeev")
_FAMILY = ("Lovelace", "Turing", "Hopper", "Bengio", "Li", "Schmidhuber", "Koller", "Ng", "Wei", "Arora")
_VENUES = ("ICML", "NeurIPS", "ICLR", "ACL", "Journal of Machine Learning Research")


def _bibtex_value(text: str) -> str:
    return text.replace("\\", "\\textbackslash{}").replace("{", "\\{").replace("}", "\\}")


def to_bibtex(rows: list[dict]) -> str:
    entries = []
    for i, r in enumerate(rows):
        entries.append(
            f"@inproceedings{{paper{i},\n  title = {{{_bibtex_value(r['title'])}}},\n"
            f"  author = {{{' and '.join(r['authors'])}}},\n  booktitle = {{{r['venue']}}},\n"
            f"  year = {{{r['year']}}},\n"
            f"  eprint = {{{r['arxiv']}}},\n  archivePrefix = {{arXiv}},\n  primaryClass = {{{r['category']}}},\n"
            f"  doi = {{{r['doi']}}},\n  abstract = {{{_bibtex_value(r['abstract'])}}}\n}}\n"
        )
    return "\n".join(entries)


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def to_atom(rows: list[dict]) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">',
           "  <title>arXiv Query: synthetic</title>"]  # fmt: skip
    for r in rows:
        authors = "".join(f"<author><name>{_xml(a)}</name></author>" for a in r["authors"])
        out.append(
            f"<entry><id>http://arxiv.org/abs/{r['arxiv']}v1</id><published>{r['year']}-01-01T00:00:00Z</published>"
            f"<title>{_xml(r['title'])}</title><summary>{_xml(r['abstract'])}</summary>{authors}"
            f"<arxiv:doi>{r['doi']}</arxiv:doi>"
            f'<link href="http://arxiv.org/abs/{r["arxiv"]}v1" rel="alternate" type="text/html"/>'
            f'<link title="pdf" href="http://arxiv.org/pdf/{r["arxiv"]}v1" rel="related" type="application/pdf"/>'
            f'<arxiv:primary_category term="{r["category"]}"/><category term="{r["category"]}"/></entry>'
        )
    out.append("</feed>")
    return "\n".join(out) + "\n"


def to_jsonl(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        row = {
            "id": r["arxiv"],
            "submitter": r["authors"][0],
            "authors": ", ".join(r["authors"]),
            "title": r["title"],
            "journal-ref": r["venue"],
            "doi": r["doi"],
            "categories": r["category"],
            "abstract": "  " + r["abstract"],
            "versions": [{"version": "v1", "created": f"Mon, 2 Apr {r['year']} 19:18:42 GMT"}],
            "update_date": f"{r['year']}-04-02",
            "authors_parsed": [[a.split(" ", 1)[1], a.split(" ", 1)[0], ""] for a in r["authors"]],
        }
        lines.append(json.dumps(row))
    return "\n".join(lines) + "\n"


def to_delimited(rows: list[dict], delimiter: str = ",") -> str:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["Title", "Abstract", "Authors", "Year", "Venue", "DOI", "arXiv"])
    for r in rows:
        abstract = r["abstract"].replace("\t", " ") if delimiter == "\t" else r["abstract"]
        writer.writerow([r["title"], abstract, "; ".join(r["authors"]), r["year"], r["venue"], r["doi"], r["arxiv"]])
    return buffer.getvalue()


def to_readlist_json(rows: list[dict]) -> str:
    from readlist.core.text.normalize import paper_id

    papers = []
    for i, r in enumerate(rows, 1):
        papers.append(
            {"id": paper_id(r["abstract"]), "index": i, "title": r["title"], "text": r["abstract"], "urls": [],
             "given_title": r["title"], "authors": r["authors"], "year": r["year"], "venue": r["venue"],
             "arxiv_id": r["arxiv"], "doi": r["doi"], "categories": [r["category"]], "status": "unread",
             "starred": False, "tags": [], "note": "", "created": None, "updated": None, "read_at": None}
        )  # fmt: skip
    return json.dumps({"version": 1, "papers": papers}, ensure_ascii=False, indent=2) + "\n"


# Each format: its file's extension and its writer.
FORMATS: dict[str, tuple[str, Callable[[list[dict]], str]]] = {
    "bibtex": (".bib", to_bibtex),
    "atom": (".atom", to_atom),
    "jsonl": (".jsonl", to_jsonl),
    "csv": (".csv", to_delimited),
    "tsv": (".tsv", lambda rows: to_delimited(rows, "\t")),
    "json": (".json", to_readlist_json),
}


def titles_path() -> Path:
    return sample_path().with_name("arxiv-cs-6k.titles.tsv")


def corpus_path(n: int, fmt: str = "text", seed: int = SEED) -> Path:
    extension = ".txt" if fmt == "text" else FORMATS[fmt][0]
    name = f"corpus-{n}-{seed}{extension}" if fmt == "text" else f"corpus-{n}-{seed}-{fmt}{extension}"
    target = Path(tempfile.gettempdir()) / "readlist-bench" / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".part")
        content = generate(n, seed) if fmt == "text" else FORMATS[fmt][1](records(n, seed))
        tmp.write_text(content, encoding="utf-8")
        tmp.replace(target)
    return target


def main(argv: list[str]) -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Write seeded paper files of N papers and print their paths.")
    parser.add_argument("sizes", nargs="*", type=int, default=[10000, 100000], metavar="N")
    parser.add_argument("--format", default="text", choices=["text", *FORMATS], help="default: text")
    parser.add_argument("--seed", type=int, default=SEED, help=f"default: {SEED}")
    args = parser.parse_args(argv)
    for n in args.sizes:
        print(corpus_path(n, args.format, args.seed))


if __name__ == "__main__":
    main(sys.argv[1:])
