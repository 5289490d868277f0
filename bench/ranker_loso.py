"""Leave-one-source-out: the learned field ranker against the extractor before it, per field.

    .venv/bin/python bench/ranker_loso.py [--corpus ../shared/corpus] [--generated 468]
                                          [--baseline-ref REF] [--json OUT] [--jobs 2]
                                          [--write-model PATH]

For every source of the corpus and of ``outside/``, a ranker trained on all the other sources
(and the generated invoices, as ``ledgerline-train`` trains) is scored on the documents of the
source left out, text layer only; next to it, on the same documents in the same run, the
extractor as it was before the ranker (``--baseline-ref``, default :data:`BASELINE_REF`: its
hand-tuned choice of every field), run from that commit's tree in a child process. Line items
are not ranked: they are the extractor's now and before, with the sign the service gives them
(a credit note's net amounts negative, as its truth has them). The tables: :mod:`loso`.
``--write-model`` also writes the model file ``ledgerline-train`` writes, from the same folds
(its calibration is fitted on exactly these left-out predictions), sparing a second run.
Prints no names, addresses or file names from the corpus, only aggregate numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "service"))
sys.path.insert(0, str(ROOT / "bench"))

from ledgerline_tools.ranker import train as T

# The last commit whose extractor chose every field by the hand-tuned rules (the candidates,
# vocabularies and currency reading of that day): the baseline the ranker is measured against.
BASELINE_REF = "376b6239"

# Run in a child process with the baseline's tree first on sys.path: extract each (key, pdf)
# from the text layer alone and print {key: {"fields": {...}, "items": [...]}}.
_BASELINE_CHILD = r"""
import json, sys
from blake3 import blake3
from ledgerline.extraction import ExtractionError, extract_pdf
out = {}
for key, pdf in json.load(sys.stdin):
    h = "blake3:" + blake3(open(pdf, "rb").read()).hexdigest()
    try:
        doc = extract_pdf(pdf, content_hash=h, use_embedded_xml=False)
    except ExtractionError:
        continue
    out[key] = {"fields": {f: v["value"] for f, v in doc["fields"].items()},
                "items": [li.get("net_amount") for li in doc["line_items"]]}
json.dump(out, sys.stdout)
"""


def baseline_values(ref: str, work: list[tuple[str, str]]) -> dict:
    """{doc key: {"fields", "items"}} of the extractor at ``ref`` on ``work``'s PDFs."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "service"],
                             check=True, capture_output=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        child = subprocess.run(
            [sys.executable, "-c", _BASELINE_CHILD], input=json.dumps(work), text=True,
            capture_output=True, check=True, cwd=tmp,
            env={"PYTHONPATH": str(Path(tmp) / "service"), "PATH": "/usr/bin:/bin"},
        )
    return json.loads(child.stdout)


def run(corpus: Path, generated: int, ref: str, json_out: str | None = None, *,
        jobs: int = 1, write_model: str | None = None) -> dict:
    import loso
    from ledgerline_tools.ranker.dataset import norm_amount
    from accuracy import truth_items

    from ledgerline.extraction import document_type
    from ledgerline.extraction.finders.line_items import extract_line_items
    from ledgerline.extraction.geometry import DocText
    from ledgerline_tools.ranker.dataset import (
        corpus_documents,
        generated_documents,
        manifest_rows,
    )

    t0 = time.perf_counter()
    docs = corpus_documents(corpus) + generated_documents(generated, T.GENERATED_SEED)
    exs = T.examples(docs)
    t1 = time.perf_counter()
    rows = manifest_rows(corpus)
    real = [ex for ex in exs if ex.doc.part != "generated"]
    work = [(ex.doc.key, str(corpus / rows[int(ex.doc.key[3:])]["pdf"])) for ex in real]
    before = baseline_values(ref, work)
    t2 = time.perf_counter()
    done = T.folds(exs, jobs=jobs)
    probs = done.probs
    t3 = time.perf_counter()
    items = {}
    for ex in real:
        dt = DocText(ex.doc.pages)
        now = [li["net_amount"] for li in extract_line_items(dt)]
        # the finder reads magnitudes; the service signs a credit note's lines once it knows
        # the type, here from the page alone (no fold's totals to tell a negative correction)
        if document_type.of_text(dt, {}).credit_note:
            now = [document_type.signed_amounts(a) for a in now]
        old = before.get(ex.doc.key, {}).get("items", [])
        items[ex.doc.key] = ([norm_amount(a) for a in truth_items(ex.doc.truth)],
                             [norm_amount(a) for a in old],
                             [norm_amount(a) for a in now])
    print(f"{len(real)} real documents, {generated} generated; baseline: the extractor at {ref}")
    print(f"featurised in {t1 - t0:.0f} s, baseline in {t2 - t1:.0f} s, leave-one-source-out"
          f" ({len({ex.doc.source for ex in real})} sources) in {t3 - t2:.0f} s")
    print()
    result = loso.report(exs, probs, {k: v["fields"] for k, v in before.items()}, items)
    result["baseline_ref"] = ref
    t4 = time.perf_counter()
    splits = {}
    for name, held in loso.repository_splits(exs).items():
        splits[name] = (T.folds(exs, jobs=jobs, groups=held).probs, held)
    result["splits"] = loso.split_report(exs, probs, splits)
    print(f"(the splits by repository: {time.perf_counter() - t4:.0f} s)")
    if write_model:
        # the same steps as ledgerline-train on the same folds: the file it would write
        from ledgerline.extraction.ranker.model import dump

        dump(Path(write_model), *T.finish(exs, done, generated, T.GENERATED_SEED))
        print(f"\nwrote the model of these folds to {write_model}")
    if json_out:
        Path(json_out).write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    return result


def main(argv=None) -> int:
    from ledgerline_tools.ranker.dataset import default_corpus

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(default_corpus()))
    ap.add_argument("--generated", type=int, default=T.GENERATED_COUNT)
    ap.add_argument("--baseline-ref", default=BASELINE_REF)
    ap.add_argument("--json", default=None, help="also write the numbers as JSON here")
    ap.add_argument("--jobs", type=int, default=T.JOBS, help="folds trained at once")
    ap.add_argument("--write-model", default=None, metavar="PATH",
                    help="also write the model file ledgerline-train would write (same folds)")
    args = ap.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != T.HASH_SEED:  # the generated invoices depend on it
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  {**os.environ, "PYTHONHASHSEED": T.HASH_SEED})
    corpus = Path(args.corpus)
    if not (corpus / "MANIFEST.tsv").is_file():
        print(f"corpus not found at {corpus} (MANIFEST.tsv missing); nothing to measure")
        return 0
    run(corpus, args.generated, args.baseline_ref, args.json, jobs=args.jobs,
        write_model=args.write_model)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
