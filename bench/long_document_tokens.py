"""Input tokens of long documents read by a chat model: page by page with the bounded working
state, against sending the whole transcript so far with every page.

    .venv/bin/python bench/long_document_tokens.py [--pages 10,50,100]

Documents are real generated invoice pages (ledgerline_tools.samples) in a row. The working-state
run goes through the real provider code and the official `openai` client against the local
OpenAI stand-in, and reads the tokens from each response's `usage`; the whole-transcript
figures count, with the same tokenizer estimate the stand-in uses, the prompts that approach
would send (page k's request carries pages 1..k), which the stand-in would otherwise have to
read 5,050 pages of for 100. t is the mean tokens of one page's text; the whole transcript
costs about t·n(n+1)/2.
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.standins.openai_api import MESSAGE_OVERHEAD_TOKENS, OpenAIStandIn

from ledgerline.adapters.providers.layout_text import page_text
from ledgerline.adapters.providers.openai_chat import SYSTEM_PROMPT, OpenAIProvider
from ledgerline.adapters.providers.prepare import Prepared, Preparer
from ledgerline.config import Settings
from ledgerline.domain.providers import estimated_tokens
from ledgerline.ports.extractor import CallContext
from ledgerline_tools.samples import generate


def long_pdf(pages: int) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer, seed = PdfWriter(), 1
    while len(writer.pages) < pages:
        pdf, _ = generate(seed, lang="en")
        for page in PdfReader(io.BytesIO(pdf)).pages[: pages - len(writer.pages)]:
            writer.add_page(page)
        seed += 1
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def prepared(pdf: bytes) -> Prepared:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as tmp:
        tmp.write(pdf)
        tmp.flush()
        preparer = Preparer(versions=None, use_embedded_xml=False)
        return Prepared.from_dict(preparer.extract(tmp.name, "blake3:" + "0" * 64))


def working_state_run(document: Prepared, standin: OpenAIStandIn) -> dict:
    settings = Settings(provider="openai", openai_base_url=f"{standin.url}/v1",
                        openai_api_key=standin.api_key, openai_pages_per_call=1)
    standin.control("reset", {})
    OpenAIProvider(settings).extract(document, "blake3:" + "0" * 64, CallContext(job_id="bench"))
    charges = standin.tally.as_dict()["charges"]
    return {"inputs": [c["prompt_tokens"] for c in charges],
            "outputs": [c["completion_tokens"] for c in charges],
            "state": [c["state_tokens"] for c in charges]}


def whole_transcript(document: Prepared) -> list[int]:
    """Input tokens of each request when request k carries pages 1..k and no state."""
    texts = [f"PAGE {p['number']} OF {document.page_count}\n{page_text(p)}"
             for p in document.pages]
    system = estimated_tokens(SYSTEM_PROMPT) + MESSAGE_OVERHEAD_TOKENS
    inputs = []
    for k in range(1, len(texts) + 1):
        inputs.append(system + estimated_tokens("\n\n".join(texts[:k])) + MESSAGE_OVERHEAD_TOKENS)
    return inputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="10,50,100")
    args = parser.parse_args()
    rows = []
    with OpenAIStandIn().running() as standin:
        for n in [int(p) for p in args.pages.split(",")]:
            document = prepared(long_pdf(n))
            t = statistics.mean(estimated_tokens(page_text(p)) for p in document.pages)
            state = working_state_run(document, standin)
            whole = whole_transcript(document)
            rows.append((n, t, state, whole))
    print(f"{'pages':>5}  {'approach':<16} {'calls':>5} {'first':>7} {'median':>7} {'max':>7} "
          f"{'total input':>12} {'t·n(n+1)/2':>12} {'output':>9} {'state max':>9}")
    for n, t, state, whole in rows:
        print(line(n, "working state", state["inputs"], "", state["outputs"], state["state"]))
        print(line(n, "whole transcript", whole, f"{t * n * (n + 1) / 2:,.0f}", None, None))
        print(f"{'':>5}  t = {t:,.0f} tokens a page; working state / whole transcript = "
              f"{sum(state['inputs']) / sum(whole):.3f} of the input tokens")


def line(n, name, inputs, formula, outputs, state) -> str:
    return (f"{n:>5}  {name:<16} {len(inputs):>5} {inputs[0]:>7,} "
            f"{int(statistics.median(inputs)):>7,} {max(inputs):>7,} {sum(inputs):>12,} "
            f"{formula:>12} {(f'{sum(outputs):,}' if outputs else ''):>9} "
            f"{(f'{max(state):,}' if state else ''):>9}")


if __name__ == "__main__":
    main()
