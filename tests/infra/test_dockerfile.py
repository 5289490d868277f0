"""Invariants of the Dockerfile and .dockerignore (no Docker engine is needed to check these)."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs with continuation lines joined and comments dropped."""
    logical: list[str] = []
    pending = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    assert not pending, "dangling line continuation"
    result = []
    for line in logical:
        keyword, _, args = line.partition(" ")
        result.append((keyword.upper(), args.strip()))
    return result


def _stages() -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for keyword, args in _instructions():
        if keyword == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((keyword, args))
    return stages


def test_multi_stage_with_slim_runtime() -> None:
    stages = _stages()
    assert len(stages) >= 2
    args = dict(re.findall(r"^ARG (\w+)=(\S+)$", DOCKERFILE.read_text(), flags=re.M))
    runtime_from = stages[-1][0][1].split()[0]
    image = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], runtime_from)
    assert image == "python:3.11-slim"


def test_runtime_has_no_build_tools_and_takes_only_the_venv() -> None:
    runtime = _stages()[-1]
    runs = " ".join(args for keyword, args in runtime if keyword == "RUN")
    assert not re.search(r"build-essential|\bgcc\b|apt-get install|pip install", runs)
    copies = [args for keyword, args in runtime if keyword == "COPY"]
    assert copies and all(c.startswith("--from=builder") for c in copies)


def test_runs_as_non_root() -> None:
    users = [args for keyword, args in _stages()[-1] if keyword == "USER"]
    assert users, "final stage must set USER"
    assert users[-1].split(":")[0] not in {"0", "root"}


def test_healthcheck_probes_healthz_with_python() -> None:
    checks = [args for keyword, args in _stages()[-1] if keyword == "HEALTHCHECK"]
    assert len(checks) == 1
    exec_form = checks[0][checks[0].index("CMD") + 3 :].strip()
    argv = json.loads(exec_form)
    assert argv[:2] == ["python", "-c"]
    compile(argv[2], "<healthcheck>", "exec")
    assert "urllib.request" in argv[2] and "/healthz" in argv[2]


def test_default_command_is_gunicorn_and_overridable() -> None:
    final = _stages()[-1]
    assert not [args for keyword, args in final if keyword == "ENTRYPOINT"], (
        "an ENTRYPOINT would swallow `docker run IMAGE ledgerline worker`"
    )
    cmd = [args for keyword, args in final if keyword == "CMD"]
    assert json.loads(cmd[-1]) == [
        "gunicorn",
        "-c",
        "python:ledgerline.gunicorn_conf",
        "ledgerline.wsgi:app",
    ]
    assert ("EXPOSE", "8000") in final


def test_dockerignore_keeps_context_small() -> None:
    lines = [
        line.strip()
        for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[0] == "*", "allowlist: ignore everything, then re-include what the build needs"
    reincluded = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    assert {"pyproject.toml", "service"} <= reincluded
    assert not reincluded & {".git", ".venv", "var", "tests"}
