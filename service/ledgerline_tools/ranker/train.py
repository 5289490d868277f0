"""Rebuild the ranker from the shared corpus and the sample generator, deterministically.

    ledgerline-train [--corpus ../shared/corpus] [--generated 468] [--out PATH]
    python -m ledgerline_tools.ranker.train

Steps: read every scorable text-layer row of the corpus and ``--generated`` sample invoices;
turn each into feature rows (:mod:`ledgerline.extraction.ranker.rows`), labelled by the truth; run leave-one-source-out over
the real documents the model may learn from (:func:`leave_one_source_out`), whose predictions on
each left-out source fit each field's calibrator (a value's evidence -> its confidence) and its
acceptance threshold (:mod:`ledgerline.extraction.ranker.confidence`); train the final model on everything it may learn
from; write the model file. Rows whose licence is ``none stated`` never enter a training set, in
any fold (:func:`.dataset.is_trainable`). Fixed seeds, LightGBM's deterministic mode on one
thread: the same inputs give the same file.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ledgerline.extraction.document import AMOUNT_FIELDS
from ledgerline.extraction.document_type import CREDIT_NOTE
from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.ranker import confidence
from ledgerline.extraction.ranker.features import CATEGORICAL, FEATURE_INDEX, FEATURE_NAMES
from ledgerline.extraction.ranker.model import CONFIDENCE_FIELDS, MODEL_PATH, decide, dump
from ledgerline.extraction.ranker.rows import RANKED_FIELDS, DocumentRows, document_rows

from ..extra import why_not
from .dataset import Document, corpus_documents, default_corpus, generated_documents, norm

JOBS = min(2, os.cpu_count() or 1)  # folds trained at once: these machines have two cores
GENERATED_COUNT = 468  # every language x layout pair four times
GENERATED_SEED = 7  # the generated benchmark uses seed 0: its invoices are never trained on
PARAMS = {
    "objective": "binary",
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 20,
    # every feature at every split: with a sampled share (0.8) a new feature reshuffled which
    # columns each tree saw, and the figures of unrelated fields moved by a document either way
    "feature_fraction": 1.0,
    "lambda_l2": 1.0,
    "max_bin": 63,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 1,
    "seed": 7,
    "verbose": -1,
}
ROUNDS = 150
# A real document weighs this much over the square root of its source's size (a source with a
# hundred near-identical renderings should not outweigh ten sources of one invoice each); a
# generated one weighs GENERATED_WEIGHT.
REAL_WEIGHT, GENERATED_WEIGHT = 3.0, 1.0


@dataclass
class Example:
    """A document ready for training and evaluation."""

    doc: Document
    rows: DocumentRows
    labels: dict[str, np.ndarray]  # field -> 0/1 per row; absent when the truth does not say
    weight: float = 1.0


def examples(docs: list[Document]) -> list[Example]:
    out = []
    sizes = defaultdict(int)
    for d in docs:
        sizes[d.source] += 1
    for d in docs:
        dt = DocText(d.pages)
        rows = document_rows(dt, find_candidates(dt))
        labels = {}
        for f in RANKED_FIELDS:
            truth = norm(f, d.truth.get(f))
            if truth is None:
                continue
            labels[f] = np.asarray([same(f, r.value, truth, d.truth) for r in rows.rows[f]],
                                   dtype=float)
        if d.part == "generated":
            weight = GENERATED_WEIGHT
        else:
            weight = REAL_WEIGHT / sizes[d.source] ** 0.5
        out.append(Example(d, rows, labels, weight))
    return out


def same(field: str, value, truth, doc_truth: dict) -> bool:
    """Is a candidate's value the truth? A credit note's amounts are compared as magnitudes:
    the page may print them either way, their sign is the document type's."""
    got = norm(field, value)
    if field in AMOUNT_FIELDS and doc_truth.get("document_type") == CREDIT_NOTE:
        return got is not None and abs(got) == abs(truth)
    return got == truth


def fit_field(train: list[Example], field: str):
    """The booster of one field, or None when no document of the set has its truth."""
    import lightgbm

    xs, ys, ws = [], [], []
    for ex in train:
        y = ex.labels.get(field)
        if y is None or not len(y):
            continue
        xs.append(ex.rows.matrices[field])
        ys.append(y)
        ws.append(np.full(len(y), ex.weight / max(1.0, y.sum() or 1.0)))
    if not xs or not any(y.any() for y in ys):
        return None
    data = lightgbm.Dataset(
        np.vstack(xs),
        np.concatenate(ys),
        weight=np.concatenate(ws),
        feature_name=list(FEATURE_NAMES),
        categorical_feature=[FEATURE_INDEX[c] for c in CATEGORICAL],
        free_raw_data=True,
    )
    return lightgbm.train(PARAMS, data, num_boost_round=ROUNDS)


def fit(train: list[Example]) -> dict:
    return {f: fit_field(train, f) for f in RANKED_FIELDS}


def predict(boosters: dict, ex: Example) -> dict[str, np.ndarray]:
    out = {}
    for f in RANKED_FIELDS:
        x = ex.rows.matrices[f]
        b = boosters.get(f)
        out[f] = b.predict(x, num_threads=1) if b is not None and len(x) else np.zeros(len(x))
    return out


# The examples a fold reads: set before the worker processes fork, so that they inherit them
# instead of receiving a pickled copy per fold.
_FOLD_EXAMPLES: list[Example] = []


@dataclass
class Folds:
    probs: dict[str, dict]  # doc key -> {field: probabilities} of a model without its source
    everything: dict  # field -> booster trained on every trainable document (the final model)


def _fold(held: tuple[str, ...] | None) -> tuple[dict, dict | None]:
    """Predictions for the documents of the ``held`` sources by a model trained on every other
    trainable document; ``held`` None: the model of every trainable document, which predicts for
    the sources no model may learn from and is the final model."""
    exs = _FOLD_EXAMPLES
    boosters = fit([ex for ex in exs if ex.doc.trainable and ex.doc.source not in (held or ())])
    if held is None:
        learnable = {ex.doc.source for ex in exs if ex.doc.trainable}
        test = [ex for ex in exs if ex.doc.part != "generated" and ex.doc.source not in learnable]
    else:
        test = [ex for ex in exs if ex.doc.source in held]
    return {ex.doc.key: predict(boosters, ex) for ex in test}, boosters if held is None else None


def folds(exs: list[Example], *, jobs: int = 1, progress=None, groups=None) -> Folds:
    """Leave-one-source-out over the real documents, plus the model of everything.

    Each fold trains on every trainable document of the other sources and on the generated
    ones; sources that may not be trained on are left out of every fold anyway, so the model of
    everything serves them all. ``groups``: instead of one source per fold, these tuples of
    sources (a split by repository that holds out many at once; no model of everything then).
    Every fold trains on one thread in its own process (``jobs`` at a time), so the result does
    not depend on ``jobs``."""
    global _FOLD_EXAMPLES
    sources = sorted(
        {ex.doc.source for ex in exs if ex.doc.part != "generated" and ex.doc.trainable}
    )
    tasks = list(groups) if groups is not None else [None, *((s,) for s in sources)]
    probs: dict[str, dict] = {}
    everything = None
    _FOLD_EXAMPLES = exs
    try:
        if jobs > 1:
            pool = multiprocessing.get_context("fork").Pool(jobs)
            results = pool.imap(_fold, tasks)
        else:
            pool, results = None, map(_fold, tasks)
        for k, (got, boosters) in enumerate(results):
            probs.update(got)
            everything = boosters if boosters is not None else everything
            if progress:
                progress(k + 1, len(tasks))
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        _FOLD_EXAMPLES = []
    return Folds(probs, everything)


def leave_one_source_out(exs: list[Example], *, jobs: int = 1, progress=None) -> dict[str, dict]:
    """For every real document: the probabilities of a model trained without its source."""
    return folds(exs, jobs=jobs, progress=progress).probs


@dataclass(frozen=True)
class Outcome:
    """One value chosen out of source: its evidence, whether it was right, its weight."""

    evidence: tuple
    right: bool
    weight: float
    source: str
    printed_truth: bool = False  # the truth was written from the printed page (``outside/``)


def outcomes(exs: list[Example], probs: dict[str, dict]) -> dict[str, list[Outcome]]:
    """The outcome of every field value chosen with these probabilities, where the truth says
    what it should be; each weighs one over the square root of its source's size. On the
    outside documents, whose truth was written from the printed page, a value the truth does
    not have is wrong (the page does not state it); elsewhere such a value is not judged."""
    got = defaultdict(list)
    sizes = defaultdict(int)
    for ex in exs:
        sizes[ex.doc.source] += 1
    for ex in exs:
        if ex.doc.key not in probs:
            continue
        picks = decide(ex.rows, probs[ex.doc.key], {})
        for f, pick in picks.items():
            truth = norm(f, ex.doc.truth.get(f))
            if pick.value is None or (truth is None and ex.doc.part != "outside"):
                continue
            right = truth is not None and same(f, pick.value, truth, ex.doc.truth)
            weight = 1.0 / sizes[ex.doc.source] ** 0.5
            got[f].append(Outcome(pick.evidence, right, weight, ex.doc.source,
                                  ex.doc.part == "outside"))
    return got


def fit_confidence(pairs: dict[str, list[Outcome]]) -> tuple[dict, dict]:
    """(calibrator, acceptance threshold) per field. The threshold is chosen on confidences
    each computed by a calibrator fitted without the value's own source: no value at least
    that sure was wrong on a source neither the ranker nor the calibrator had seen. The
    calibrator learns from every outcome, the threshold only from those whose truth was
    written from the printed page (:mod:`ledgerline.extraction.ranker.confidence`)."""
    calibrators, thresholds = {}, {}
    pool = _Pool([o for f in RANKED_FIELDS for o in pairs.get(f, [])])
    for f in CONFIDENCE_FIELDS:
        got = pairs.get(f, [])
        shared = f in RANKED_FIELDS
        calibrators[f] = _fit(got, pool if shared else None)
        confs, right, weights = [], [], []
        for source in sorted({o.source for o in got if o.printed_truth}):
            held_out = _fit([o for o in got if o.source != source], pool if shared else None,
                            source)
            for o in got:
                if o.source == source:
                    confs.append(held_out(o.evidence))
                    right.append(o.right)
                    weights.append(o.weight)
        thresholds[f] = confidence.accept_threshold(confs, right, weights)
    return calibrators, thresholds


def _fit(got: list[Outcome], pool: _Pool | None = None,
         without: str | None = None) -> confidence.Calibrator:
    """The calibrator of a field's outcomes; where they are too few to fit one (too few wrong
    values), that of every ranked field's outcomes (``pool``), ``without`` one source."""
    own = _plain_fit(got)
    return own if own.coef or pool is None else pool.without(without)


SIGNS = tuple(confidence.SIGNS[name] for name in confidence.EVIDENCE)


def _plain_fit(got: list[Outcome]) -> confidence.Calibrator:
    return confidence.fit([o.evidence for o in got], [o.right for o in got],
                          [o.weight for o in got], SIGNS)


class _Pool:
    """The outcomes of every ranked field together. The ranker's fields share what their
    evidence means (how far ahead of the runner-up a value is, whether a label names it, how
    many places print it, whether the totals or dates agree with it), so a field with too few
    wrong values out of source to fit its own calibrator (an invoice number: one or two) is
    calibrated on them all, not left with its raw probability, on which no evidence counts.
    Fitted once per source left out."""

    def __init__(self, outcomes: list[Outcome]):
        self.outcomes = outcomes
        self.fitted: dict[str | None, confidence.Calibrator] = {}

    def without(self, source: str | None) -> confidence.Calibrator:
        if source not in self.fitted:
            self.fitted[source] = _plain_fit([o for o in self.outcomes if o.source != source])
        return self.fitted[source]


def calibration_pairs(exs, probs, *, without_source: str | None = None):
    """Outcomes of the trainable real documents (those the committed model may derive from),
    optionally leaving one source out (the source a LOSO fold tests on)."""
    use = [
        ex
        for ex in exs
        if ex.doc.trainable and ex.doc.part != "generated" and ex.doc.source != without_source
    ]
    return outcomes(use, probs)


def build(corpus: Path, generated: int, seed: int, *, jobs: int = 1, log=print):
    """(boosters, calibrations, meta) of the model file, from the corpus and the generator."""
    t0 = time.perf_counter()
    docs = corpus_documents(corpus) + generated_documents(generated, seed)
    exs = examples(docs)
    log(f"{len(docs)} documents read and featurised in {time.perf_counter() - t0:.1f} s")
    t1 = time.perf_counter()
    done = folds(exs, jobs=jobs)
    log(f"leave-one-source-out and the final model: {time.perf_counter() - t1:.1f} s")
    return finish(exs, done, generated, seed)


def finish(exs: list[Example], done: Folds, generated: int, seed: int) -> tuple:
    """The model file's parts from the folds: the model of everything, its calibrators and
    acceptance thresholds fitted on the predictions for left-out sources."""
    cals, thresholds = fit_confidence(calibration_pairs(exs, done.probs))
    meta = {
        "documents": sum(1 for ex in exs if ex.doc.trainable),
        "generated": generated,
        "generated_seed": seed,
        "rounds": ROUNDS,
        "lightgbm": _lightgbm_version(),
    }
    return done.everything, cals, thresholds, meta


def _lightgbm_version() -> str:
    import lightgbm

    return lightgbm.__version__


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(default_corpus()))
    ap.add_argument("--generated", type=int, default=GENERATED_COUNT)
    ap.add_argument("--seed", type=int, default=GENERATED_SEED)
    ap.add_argument("--out", default=str(MODEL_PATH))
    ap.add_argument("--jobs", type=int, default=JOBS,
                    help="folds trained at once, one process each (the result is the same)")
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    if not (corpus / "MANIFEST.tsv").is_file():
        print(f"corpus not found at {corpus} (MANIFEST.tsv missing)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    boosters, cals, thresholds, meta = build(corpus, args.generated, args.seed, jobs=args.jobs)
    out = Path(args.out)
    dump(out, boosters, cals, thresholds, meta)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB) in {time.perf_counter() - t0:.1f} s")
    return 0


# The sample generator's Faker locales pick some names (Italian cities, for one) in an order
# that follows Python's string hashing, so one fixed hash seed is part of the reproducible input.
HASH_SEED = "0"


def cli() -> int:
    """``ledgerline-train``: :func:`main` under :data:`HASH_SEED` (re-executed when needed)."""
    refusal = why_not("ledgerline-train")
    if refusal:
        print(refusal, file=sys.stderr)
        return 1
    if os.environ.get("PYTHONHASHSEED") != HASH_SEED:
        env = {**os.environ, "PYTHONHASHSEED": HASH_SEED}
        argv = [sys.executable, "-m", "ledgerline_tools.ranker.train", *sys.argv[1:]]
        os.execve(sys.executable, argv, env)
    return main()


if __name__ == "__main__":
    raise SystemExit(cli())


__all__ = ["build", "examples", "finish", "fit", "fit_confidence", "folds",
           "leave_one_source_out", "main"]
