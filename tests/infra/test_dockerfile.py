"""Invariants of the Dockerfile and .dockerignore (no Docker engine is needed to check these)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
LOCK = ROOT / "infra" / "requirements.lock"


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
    assert not re.search(r"build-essential|\bgcc\b|-dev\b|pip install", runs)
    installed = re.findall(r"apt-get install -y --no-install-recommends ([^&]+)", runs)
    assert [set(i.split()) for i in installed] == [{"libpq5", "libgomp1", "tini"}]  # runtime libraries only (libgomp1: LightGBM)
    copies = [args for keyword, args in runtime if keyword == "COPY"]
    assert copies and all(c.startswith("--from=builder") for c in copies)


def test_psycopg_is_compiled_against_the_system_libpq() -> None:
    builder = " ".join(args for keyword, args in _stages()[0] if keyword == "RUN")
    assert "libpq-dev" in builder and "build-essential" in builder
    pins = _lock_pins()
    assert "psycopg-c" in pins and "psycopg-binary" not in pins


def _lock_pins() -> dict[str, str]:
    return dict(re.findall(r"^([a-z0-9][a-z0-9._-]*)==(\S+)", LOCK.read_text(), flags=re.M))


def test_the_image_installs_exactly_the_hashed_lock() -> None:
    builder = _stages()[0]
    runs = [args for keyword, args in builder if keyword == "RUN"]
    assert any("--require-hashes --no-deps -r /tmp/requirements.lock" in r for r in runs)
    # The application itself adds nothing: its own wheel goes in without dependencies.
    assert any("pip install --no-deps /wheels/ledgerline-" in r for r in runs)
    assert ("COPY", "infra/requirements.lock /tmp/requirements.lock") in builder
    # Every requirement in the lock is pinned and carries at least one hash.
    blocks = re.split(r"\n(?=[a-z0-9])", LOCK.read_text().strip())
    assert blocks and all("==" in b and "--hash=sha256:" in b for b in blocks), blocks[:1]


def test_the_lock_covers_every_dependency_of_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = _lock_pins()
    for requirement in project["dependencies"]:
        name = re.split(r"[<>=\[ ;]", requirement, maxsplit=1)[0].lower().replace(".", "-")
        name = name.replace("_", "-")
        assert name in pins, f"{name} is not in infra/requirements.lock: run `make lock`"
    # No test or infra tool, nor what only the tooling (ledgerline_tools) uses, sneaks into the
    # image.
    extras = project["optional-dependencies"]
    tools = {re.split(r"[<>=\[ ;]", r, maxsplit=1)[0].lower()
             for name in ("test", "fuzz", "infra", "tools") for r in extras[name]}
    # requests: the HTTP client of the OTLP trace exporter, a runtime dependency too.
    assert not tools & (set(pins) - {"pyyaml", "hypothesis", "requests"}), tools & set(pins)


def test_the_extras_split_and_make_test_installs_what_the_suite_needs() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert {"test", "fuzz", "infra", "binary", "c", "tools"} <= set(extras)
    assert any(r.startswith("schemathesis") for r in extras["fuzz"])
    assert any(r.startswith("cfn-lint") for r in extras["infra"])
    makefile = (ROOT / "Makefile").read_text()
    assert "-e '.[binary,tools,test,fuzz,infra]'" in makefile


def test_hadolint_reports_nothing() -> None:
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(hadolint).exists():
        pytest.skip("hadolint is not installed (the infra extra brings it)")
    out = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_runs_as_non_root() -> None:
    users = [args for keyword, args in _stages()[-1] if keyword == "USER"]
    assert users, "final stage must set USER"
    assert users[-1].split(":")[0] not in {"0", "root"}


def test_healthcheck_follows_the_bind_and_passes_without_an_api() -> None:
    checks = [args for keyword, args in _stages()[-1] if keyword == "HEALTHCHECK"]
    assert len(checks) == 1
    exec_form = checks[0][checks[0].index("CMD") + 3 :].strip()
    assert json.loads(exec_form) == ["python", "-m", "ledgerline.http.healthcheck"]
    # The module it runs is in the package (tests/api/test_serving_model.py runs it).
    assert (ROOT / "service" / "ledgerline" / "http" / "healthcheck.py").is_file()


def test_tini_is_pid_1_and_the_default_command_is_gunicorn_and_overridable() -> None:
    final = _stages()[-1]
    entrypoints = [json.loads(args) for keyword, args in final if keyword == "ENTRYPOINT"]
    # Only an init: `docker run IMAGE ledgerline worker` still replaces the command alone.
    assert entrypoints == [["/usr/bin/tini", "--"]]
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
    assert {"pyproject.toml", "service", "schemas", "infra/requirements.lock"} <= reincluded
    assert not reincluded & {".git", ".venv", "var", "tests"}
