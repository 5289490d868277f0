"""Every third-party module the service imports is a dependency it declares itself, with the
extras its dependencies need for what the service uses of them: installed with its declared
dependencies only (the lock, or `pip install ledgerline`), it runs. The tooling
(ledgerline_tools) may import those and what the `tools` extra declares besides. The suite's own
venv has the test extras, which bring in much that the package alone would lack, so this is
checked from the declarations, not from what happens to be installed."""
from __future__ import annotations

import ast
import functools
import importlib.metadata as metadata
import importlib.util
import json
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO

PACKAGE = REPO / "service" / "ledgerline"
TOOLS = REPO / "service" / "ledgerline_tools"
# Found by their files, never imported: the sample generator's fonts (samples/fonts.py).
FONT_PACKAGES = {"font-source-sans-pro", "font-source-serif-pro", "font-caladea", "font-manrope"}
# Run for their side effects (a WSGI app, gunicorn's settings, the fork server's warm-up,
# Alembic's environment): they import nothing the other modules do not.
NOT_IMPORTED = {"ledgerline.wsgi", "ledgerline.gunicorn_conf",
                "ledgerline.adapters.sandbox_warmup", "ledgerline.migrations.env"}


def declared(extra: str | None = None) -> dict[str, Requirement]:
    """The dependencies, or those of one extra."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    listed = project["optional-dependencies"][extra] if extra else project["dependencies"]
    return {canonicalize_name(r.name): r for r in map(Requirement, listed)}


def declared_for_the_tools() -> dict[str, Requirement]:
    return {**declared(), **declared("tools")}


@functools.cache
def top_level_distributions() -> dict[str, list[str]]:
    return metadata.packages_distributions()  # reads every installed distribution: once


def distribution_of(module: str) -> str | None:
    top = module.split(".")[0]
    if top in sys.stdlib_module_names or top in ("ledgerline", "ledgerline_tools", "__main__") \
            or not top:
        return None
    names = top_level_distributions().get(top)
    if names and len(set(names)) > 1:  # a namespace package (opentelemetry): whose file is it?
        return _owner_of(module, tuple(sorted(set(names))))
    return canonicalize_name(names[0]) if names else top


@functools.cache
def _owner_of(module: str, candidates: tuple[str, ...]) -> str:
    spec = importlib.util.find_spec(module)
    where = Path(spec.origin if spec.origin else next(iter(spec.submodule_search_locations)))
    for name in candidates:
        for file in metadata.files(name) or []:
            if Path(file.locate()).resolve() == where.resolve() or (
                    where.is_dir() and where in Path(file.locate()).resolve().parents):
                return canonicalize_name(name)
    return canonicalize_name(module)


def imports_in_source(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Every module named by an import statement anywhere in the package (lazy ones in
    functions too: they run), by the file that names it."""
    found: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name, set()).add(str(path.relative_to(REPO)))
    return found


def undeclared(package: Path, deps: dict[str, Requirement]) -> dict[str, list[str]]:
    missing = {}
    for module, files in imports_in_source(package).items():
        dist = distribution_of(module)
        if dist is not None and dist not in deps:
            missing[module] = sorted(files)
    return missing


def test_every_module_the_service_imports_is_a_declared_dependency():
    assert undeclared(PACKAGE, declared()) == {}, "imported but not in [project] dependencies"


def test_every_module_the_tooling_imports_is_a_dependency_or_in_the_tools_extra():
    assert undeclared(TOOLS, declared_for_the_tools()) == {}, \
        "imported by ledgerline_tools but neither a dependency nor in the tools extra"


def test_the_tools_extra_holds_only_what_the_tooling_uses_and_the_service_does_not():
    extra = set(declared("tools"))
    assert not extra & set(declared()), "declared twice: the service needs it anyway"
    imported = {distribution_of(module) for module in imports_in_source(TOOLS)}
    assert extra - FONT_PACKAGES <= imported, "in the tools extra but imported by no tool"


# Imports every module of both packages in a clean interpreter and prints each import statement
# that ran, as (the importing module, the module it imported).
EDGES = r"""
import builtins, importlib, json, pkgutil, sys
import ledgerline, ledgerline_tools
edges = set()
real_import = builtins.__import__
def recording(name, globals=None, locals=None, fromlist=(), level=0):
    module = real_import(name, globals, locals, fromlist, level)
    if level == 0 and globals:
        edges.add((globals.get("__name__") or "", name))
    return module
builtins.__import__ = recording
for package in (ledgerline, ledgerline_tools):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name not in set(sys.argv[1:]):
            importlib.import_module(info.name)
print(json.dumps(sorted(edges)))
"""


@functools.cache
def extras_that_bring(dist: str, wanted: str) -> set[str] | None:
    """The extras of `dist` under which it requires `wanted`; None when it requires it
    without any (or not at all)."""
    environment = default_environment()
    extras: set[str] = set()
    for text in metadata.requires(dist) or []:
        requirement = Requirement(text)
        if canonicalize_name(requirement.name) != wanted:
            continue
        if requirement.marker is None or requirement.marker.evaluate({**environment,
                                                                      "extra": ""}):
            return None
        extras |= {e for e in metadata.metadata(dist).get_all("Provides-Extra") or []
                   if requirement.marker.evaluate({**environment, "extra": e})}
    return frozenset(extras) or None


def test_what_a_dependency_imports_for_the_service_comes_with_the_extras_asked_for():
    """gunicorn's gevent worker imports `packaging`, which gunicorn requires only in its
    `gevent` extra: a package that uses that worker must ask for gunicorn[gevent]."""
    done = subprocess.run([sys.executable, "-c", EDGES, *NOT_IMPORTED], capture_output=True,
                          text=True, check=True, timeout=300)
    deps = declared_for_the_tools()
    wrong = set()
    for importer, imported in json.loads(done.stdout):
        dist, wanted = distribution_of(importer), distribution_of(imported)
        if dist not in deps or wanted in (None, dist):
            continue
        needs = extras_that_bring(dist, wanted)
        if needs is not None and not needs & deps[dist].extras:
            wrong.add(f"{importer} imports {imported}: ask for {dist}[{'|'.join(sorted(needs))}]")
    assert sorted(wrong) == []
