"""Coverage-guided fuzzing of the extraction entry point, `ledgerline.extraction.extract_pdf`.

Any input may make extraction raise `ExtractionError` (that is its contract for bad PDFs);
any other exception, a hang past libFuzzer's `-timeout` or a memory blow-up past
`-rss_limit_mb` is a crash. libFuzzer writes the input that caused it as `crash-<sha1>`
(or `timeout-…`, `oom-…`) under `-artifact_prefix`; copy it to `tests/fuzz/regressions/`
and `tests/fuzz/test_fuzz_bounded.py` replays it on every run from then on.

    .venv/bin/python fuzz/extract_fuzz.py --seed var/fuzz/seeds
    .venv/bin/python fuzz/extract_fuzz.py -max_total_time=3600 -timeout=60 -rss_limit_mb=2048 \
        -artifact_prefix=var/fuzz/ var/fuzz/work var/fuzz/seeds

`--seed DIR` writes a few generated sample invoices into DIR, with every input that ever
crashed extraction (`tests/fuzz/regressions/`: the fuzzer starts from what once broke it), and
copies a few small PDFs of the invoice corpus beside them where `../shared/corpus` exists (any
directory of PDFs will do); `var/fuzz/work` (create it first) collects the inputs that reached
new code.
"""
from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

CONTENT_HASH = "blake3:" + "0" * 64
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "pdf"
REGRESSIONS = Path(__file__).resolve().parents[1] / "tests" / "fuzz" / "regressions"
# Small text-layer PDFs of different producers, embedded XML included (AzureInterior).
SEEDS = ("invoice2data/tests/compare/SammyMaystoneLinesTest.pdf",
         "invoice2data/tests/compare/oyo.pdf",
         "invoice2data/tests/compare/AzureInterior.pdf",
         "zugferd-corpus/ZUGFeRDv2/fail/python-factur-x/python-factur-x.pdf")
# Generated invoices (ledgerline_tools.samples), so that a clone without the corpus has seeds too:
# (seed, language) pairs giving different layouts and number formats.
SAMPLE_SEEDS = ((1, "en"), (2, "de"), (3, "fr"), (4, "pl"))


def extract_bytes(data: bytes, scratch: str) -> None:
    """Run extraction over `data`; only ExtractionError is an acceptable failure."""
    from ledgerline.extraction import ExtractionError, extract_pdf

    with open(scratch, "wb") as f:
        f.write(data)
    try:
        extract_pdf(scratch, content_hash=CONTENT_HASH)
    except ExtractionError:
        pass


def write_seeds(directory: str | os.PathLike) -> list[Path]:
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    from ledgerline_tools.samples import generate

    written = []
    for seed, lang in SAMPLE_SEEDS:
        target = out / f"sample-{lang}-{seed}.pdf"
        target.write_bytes(generate(seed, lang=lang)[0])
        written.append(target)
    for crash in sorted(REGRESSIONS.glob("crash-*")):
        target = out / crash.name
        shutil.copyfile(crash, target)
        written.append(target)
    for name in SEEDS:
        source = CORPUS / name
        if source.exists():
            target = out / source.name
            shutil.copyfile(source, target)
            written.append(target)
    return written


def main(argv: list[str]) -> None:
    if len(argv) == 3 and argv[1] == "--seed":
        print(f"wrote {len(write_seeds(argv[2]))} seed PDFs to {argv[2]}")
        return
    import atheris

    logging.disable(logging.CRITICAL)  # pdfminer narrates every broken operator
    with atheris.instrument_imports(include=["ledgerline.extraction", "pdfminer"]):
        import ledgerline.extraction  # noqa: F401  (instrumented for coverage feedback)
        import ledgerline.extraction.pipeline  # noqa: F401

    scratch_dir = tempfile.mkdtemp(prefix="ledgerline-fuzz-")
    scratch = os.path.join(scratch_dir, "input.pdf")
    atheris.Setup(argv, lambda data: extract_bytes(data, scratch))
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
