"""The README's tour and the worked example that continues it, run as written: every shell block
of both sections in one bash session (as one user in one terminal), against `make serve` started
on a fresh data directory. The only change to the text is the port, 8000 → a free one. Each
section is read wherever it lives: the README or any page of docs/.

Every command must succeed (`set -euo pipefail`), and every claim the README makes about an
answer must hold: the status line and headers written as comments under a command, and an
output block (JSON or text) right after a shell block is what its last command prints.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.conftest import REPO
from tests.e2e.service import stop, wait_until_ready
from tests.servers import free_port

README = REPO / "README.md"
DOCS = REPO / "docs"
TOUR, EXAMPLE = "A short tour", "Worked example"
README_ADDRESS = "127.0.0.1:8000"
TOUR_SECONDS = 300  # the whole script; the two synthetic days take most of it
START_ATTEMPTS = 3  # a free port can be taken by another process before gunicorn binds it
MARKER = "\x1etour-step"
HEADER_CLAIM = re.compile(r"# ([A-Za-z][A-Za-z0-9-]*): (.+)")
STATUS_CLAIM = re.compile(r"# (HTTP/1\.1 \d{3} .+)")


@dataclass
class Step:
    block: int
    command: str
    claims: list[str] = field(default_factory=list)  # comment lines right under the command


@dataclass
class Block:
    steps: list[Step]
    output: tuple[str, str] | None = None  # (language, text) of the output block after it


# --- reading the README -------------------------------------------------------------------

def headings(tokens, heading: str):
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and tokens[i + 1].content.startswith(heading):
            yield i


def section_fences(tokens, heading: str):
    """The fenced blocks under the heading that starts with `heading`, up to the next heading
    of the same or a higher level."""
    inside, level = False, None
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            title = tokens[i + 1].content
            if inside and int(token.tag[1]) <= level:
                return
            if title.startswith(heading):
                inside, level = True, int(token.tag[1])
        elif inside and token.type == "fence":
            yield token.info.strip(), token.content


def pages() -> dict[str, str]:
    """The README and every page of docs/, by path."""
    return {str(path.relative_to(REPO)): path.read_text()
            for path in [README, *sorted(DOCS.glob("**/*.md"))]}


def tour_blocks(texts: dict[str, str]) -> list[Block]:
    """The blocks of the tour, then of the worked example, from the one page holding each."""
    parsed = {name: MarkdownIt().parse(text) for name, text in texts.items()}
    blocks: list[Block] = []
    for heading in (TOUR, EXAMPLE):
        holding = [name for name, tokens in parsed.items() if list(headings(tokens, heading))]
        assert len(holding) == 1, f"{heading!r} should be the heading of one page: {holding}"
        for lang, content in section_fences(parsed[holding[0]], heading):
            if lang == "sh":
                blocks.append(Block(steps(content, len(blocks))))
            else:
                assert blocks and blocks[-1].output is None, f"output without a command: {content}"
                blocks[-1].output = (lang, content)
    return blocks


def steps(content: str, block: int) -> list[Step]:
    """Commands (with their continuation lines) and the comment lines right under each."""
    found: list[Step] = []
    continued = claims_open = False
    for line in content.splitlines():
        if continued:
            found[-1].command += "\n" + line
        elif not line.strip():
            claims_open = False
        elif line.startswith("#"):
            if claims_open:
                found[-1].claims.append(line)
        else:
            found.append(Step(block, line))
            claims_open = True
        continued = line.endswith("\\")
    return found


def script(blocks: list[Block], port: int) -> str:
    mark = f"printf '\\n{MARKER} %s\\n' \"$1\""
    lines = ["set -euo pipefail", f"step() {{ {mark}; {mark} >&2; }}"]
    for b, block in enumerate(blocks):
        for s, step in enumerate(block.steps):
            lines += [f"step {b}.{s}", step.command.replace(README_ADDRESS, f"127.0.0.1:{port}")]
    lines.append("step end")
    return "\n".join(lines) + "\n"


def split_by_step(text: str) -> dict[str, str]:
    parts = text.split(MARKER + " ")
    return {part.split("\n", 1)[0]: part.split("\n", 1)[1].strip("\n") if "\n" in part else ""
            for part in parts[1:]}


# --- checking the claims --------------------------------------------------------------------

def final_response(output: str) -> tuple[str, dict[str, str]]:
    """The status line and headers of the last non-1xx response `curl -i` printed."""
    heads = [h for h in re.findall(r"^(HTTP/1\.1 \d{3}.*?)\r?\n\r?\n", output, re.S | re.M)
             if not h.startswith("HTTP/1.1 1")]
    assert heads, f"no HTTP response in the output:\n{output[:2000]}"
    status, *lines = heads[-1].splitlines()
    return status.strip(), {k.strip().lower(): v.strip()
                            for k, _, v in (line.partition(":") for line in lines)}


def check_claims(step: Step, output: str) -> None:
    if not step.claims:
        return
    status, headers = final_response(output)
    for claim in step.claims:
        if match := STATUS_CLAIM.fullmatch(claim):
            assert status.upper() == match.group(1).upper(), (step.command, status)
        elif match := HEADER_CLAIM.fullmatch(claim):
            name, expected = match.group(1).lower(), match.group(2)
            pattern = ".*".join(map(re.escape, expected.split("…")))
            assert name in headers and re.fullmatch(pattern, headers[name]), (
                step.command, claim, headers)
        else:
            pytest.fail(f"a comment under a command that is no status or header: {claim!r}")


def check_output(block: Block, output: str) -> None:
    lang, expected = block.output
    if lang == "json":
        assert json.loads(output) == json.loads(expected), block.steps[-1].command
    else:
        shown = [line.rstrip() for line in expected.strip("\n").splitlines()]
        assert [line.rstrip() for line in output.strip("\n").splitlines()] == shown


def check_prose_claims(blocks, by_id: dict, out: dict, work: Path, log_path: Path) -> None:
    """What the README says in words: the customer sees every invoice and the supplier only
    its own; the sample comes with its expected fields; the service's report is the CLI's;
    the dashboard shows the example's days; `serve` logs each request as a JSON line."""
    uploads = [i for i, s in by_id.items() if "--data-binary" in s.command]
    supplier_upload = final_response(out[uploads[0]])[1]["location"].rsplit("/", 1)[1]
    [everything, own] = [json.loads(out[i])["items"] for i, s in by_id.items()
                         if s.command.endswith('/v1/accounts/acme/invoices"')
                         or "?status=completed" in s.command][:2]
    assert [i["id"] for i in own] == [supplier_upload]
    assert supplier_upload in {i["id"] for i in everything} and len(everything) >= 3
    truth = json.loads((work / "sample.json").read_text())
    assert truth["invoice_number"] and (work / "sample.pdf").read_bytes().startswith(b"%PDF-")
    [api_report] = [out[i] for i, s in by_id.items() if "/v1/reports/duplicates?day=" in s.command]
    [example] = [b.output[1] for b in blocks if b.output and b.output[0] == "json"]
    assert json.loads(api_report) == json.loads(example)
    page = (work / "dashboard.html").read_text()
    assert "2026-11-29" in page and "2026-11-30" in page and "40,000" in page
    requests_logged = [json.loads(line) for line in log_path.read_text().splitlines()
                       if line.startswith("{") and '"ledgerline.request"' in line]
    assert any(r["method"] == "POST" and r["route"] == "/v1/accounts/{account}/invoices"
               and r["account"] == "acme" and r["request_id"] for r in requests_logged)


# --- running it ---------------------------------------------------------------------------

def user_env(home: Path) -> dict:
    """A user's environment: none of this machine's LEDGERLINE_ settings, a home of its own
    (where both terminals find the default data directory)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LEDGERLINE_") and k != "XDG_DATA_HOME"}
    return {**env, "HOME": str(home)}


def start_make_serve(data: Path, log_path: Path):
    """`make serve` on a free port, its default data directory in the home `data`."""
    env = user_env(data)
    for attempt in range(START_ATTEMPTS):
        port = free_port()
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(["make", "--no-print-directory", "-C", str(REPO), "serve",
                                     f"SERVE_ARGS=--port {port}"], env=env, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_until_ready(f"http://127.0.0.1:{port}", proc, log_path)
            return proc, port
        except RuntimeError:
            stop(proc)
            if attempt == START_ATTEMPTS - 1:
                raise


@pytest.fixture
def tour(tmp_path):
    blocks = tour_blocks(pages())
    work = tmp_path / "terminal"  # the second terminal's directory: the user's checkout
    work.mkdir()
    (work / ".venv").symlink_to(REPO / ".venv")
    server, port = start_make_serve(work, tmp_path / "serve.log")
    try:
        yield blocks, work, port, tmp_path / "serve.log"
    finally:
        stop(server, signal.SIGTERM)


@pytest.mark.slow
def test_the_readme_tour_runs_as_written(tour):
    blocks, work, port, log_path = tour
    assert blocks and sum(len(b.steps) for b in blocks) > 10
    try:
        done = subprocess.run(["bash", "-c", script(blocks, port)], cwd=work, env=user_env(work),
                              capture_output=True, text=True, timeout=TOUR_SECONDS)
    except subprocess.TimeoutExpired as exc:
        printed = exc.stdout or b""  # bytes, whatever text=True said
        last = list(split_by_step(printed.decode() if isinstance(printed, bytes) else printed))
        pytest.fail(f"the tour did not finish in {TOUR_SECONDS} s (last step: {last[-1:]})")
    out, err = split_by_step(done.stdout), split_by_step(done.stderr)
    by_id = {f"{b}.{s}": step for b, block in enumerate(blocks)
             for s, step in enumerate(block.steps)}
    if done.returncode != 0:
        failed = list(out)[-1]
        pytest.fail(f"exit {done.returncode} in `{by_id[failed].command}`:\n"
                    f"{out[failed][-2000:]}\n{err.get(failed, '')[-2000:]}\n"
                    f"service log:\n{log_path.read_text()[-2000:]}")
    assert "end" in out, "the script stopped before its end"

    for step_id, step in by_id.items():
        check_claims(step, out[step_id])
    for b, block in enumerate(blocks):
        if block.output:
            check_output(block, out[f"{b}.{len(block.steps) - 1}"])

    check_prose_claims(blocks, by_id, out, work, log_path)


# --- the reader and the checks themselves ---------------------------------------------------

RESPONSE = ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 CREATED\r\nLocation: /v1/x/inv_42\r\n"
            "Ledgerline-Cache: miss\r\n\r\n{}")


def test_claims_are_the_comments_right_under_a_command():
    [first, second] = steps(
        "# prose\ncurl a \\\n  b\n# HTTP/1.1 201 CREATED\n\n# prose\ncurl c\n", 0)
    assert first.command == "curl a \\\n  b" and first.claims == ["# HTTP/1.1 201 CREATED"]
    assert second.command == "curl c" and second.claims == []


def test_a_claim_that_does_not_hold_fails():
    holds = Step(0, "curl", ["# HTTP/1.1 201 CREATED", "# Location: /v1/x/inv_…",
                             "# Ledgerline-Cache: miss"])
    check_claims(holds, RESPONSE)  # the final response, after 100 Continue
    for wrong in ("# HTTP/1.1 200 OK", "# Ledgerline-Cache: hit", "# Idempotent-Replayed: true"):
        with pytest.raises(AssertionError):
            check_claims(Step(0, "curl", [wrong]), RESPONSE)


def test_an_output_block_must_be_what_the_command_prints():
    check_output(Block([Step(0, "report")], ("json", '{"a": [1, 2]}')), '{"a":[1,2]}')
    with pytest.raises(AssertionError):
        check_output(Block([Step(0, "report")], ("json", '{"a": [1, 2]}')), '{"a":[1,3]}')
    with pytest.raises(AssertionError):
        check_output(Block([Step(0, "table")], ("", "day  calls\n1    40,000\n")),
                     "day  calls\n1    40,001\n")


def test_the_tour_is_read_from_whichever_page_holds_each_section():
    found = tour_blocks({"README.md": "# X\n## A short tour\n```sh\necho one\n```\n## Next\n"
                                      "```sh\necho never\n```\n",
                         "docs/ops.md": "# Ops\n### Worked example: a day\n```sh\necho two\n```\n"
                                        "```json\n{}\n```\n"})
    assert [[s.command for s in b.steps] for b in found] == [["echo one"], ["echo two"]]
    assert found[1].output == ("json", "{}\n")
    with pytest.raises(AssertionError):  # a section on two pages: which one runs is unclear
        tour_blocks({"README.md": "## A short tour\n", "docs/a.md": "## A short tour\n"})


def test_the_pages_hold_the_tour_and_the_worked_example():
    blocks = tour_blocks(pages())
    assert sum(len(b.steps) for b in blocks) > 10
    assert any(b.output and b.output[0] == "json" for b in blocks)
