"""The API described by itself: /openapi.json, a rendered /docs page and the problem types.

schemas/openapi.yaml is read once, when the app is built: the served document carries the
running version and embeds the invoice-v1 JSON Schema (schemas/invoice-v1.schema.json) as a
component, so it is complete without a second file. /docs is plain HTML drawn on the server:
no script, nothing fetched from anywhere else.
"""
from __future__ import annotations

import copy
import json
from functools import lru_cache
from importlib.resources import files

import yaml
from flask import Blueprint, Response, render_template_string

from .. import __version__
from ..domain.errors import NotFound
from .problem_types import TYPES

bp = Blueprint("docs", __name__)
# Files the OpenAPI document refers to, and the component each becomes when embedded.
EMBEDDED = {"./invoice-v1.schema.json": "InvoiceV1"}
METHODS = ("get", "post", "put", "patch", "delete")


def _schema_file(name: str) -> str:
    return (files("ledgerline") / "schemas" / name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def openapi_document() -> dict:
    document = yaml.safe_load(_schema_file("openapi.yaml"))
    document["info"]["version"] = __version__
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for filename, component in EMBEDDED.items():
        schemas[component] = _embeddable(json.loads(_schema_file(filename.removeprefix("./"))),
                                         f"#/components/schemas/{component}")
    return _replace_refs(document, {f: f"#/components/schemas/{c}" for f, c in EMBEDDED.items()})


def _embeddable(schema: dict, pointer: str) -> dict:
    """A standalone JSON Schema as an OpenAPI component: its own `#/$defs/…` become absolute."""
    schema = {k: v for k, v in schema.items() if k not in ("$schema", "$id")}
    return _replace_refs(schema, {}, local=pointer)


def _replace_refs(node, files_to_pointers: dict, local: str | None = None):
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                if value in files_to_pointers:
                    value = files_to_pointers[value]
                elif local and value.startswith("#/"):
                    value = local + value[1:]
            out[key] = _replace_refs(value, files_to_pointers, local)
        return out
    if isinstance(node, list):
        return [_replace_refs(v, files_to_pointers, local) for v in node]
    return node


@lru_cache(maxsize=1)
def _openapi_json() -> bytes:
    return json.dumps(openapi_document(), ensure_ascii=False).encode()


@bp.get("/openapi.json")
def openapi_json():
    return Response(_openapi_json(), mimetype="application/json")


@bp.get("/docs")
def docs_page():
    return _html(render_template_string(DOCS, api=_operations(), info=openapi_document()["info"],
                                        problems=TYPES))


@bp.get("/problems")
def problem_index():
    return _html(render_template_string(PROBLEMS, problems=TYPES))


@bp.get("/problems/<code>")
def problem_page(code: str):
    problem = TYPES.get(code)
    if problem is None:
        raise NotFound("no such problem type")
    return _html(render_template_string(PROBLEM, code=code, problem=problem))


def _html(body: str) -> Response:
    return Response(render_template_string(LAYOUT, body=body), mimetype="text/html")


def _operations() -> list[dict]:
    document = copy.deepcopy(openapi_document())
    components = document.get("components", {})
    out = []
    for path, item in document["paths"].items():
        shared = [_resolve(p, components) for p in item.get("parameters", [])]
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            params = shared + [_resolve(p, components) for p in op.get("parameters", [])]
            responses = []
            for status, response in op.get("responses", {}).items():
                response = _resolve(response, components)
                responses.append({
                    "status": status, "description": response.get("description", ""),
                    "headers": sorted(response.get("headers", {})),
                    "content": sorted(response.get("content", {}))})
            body = op.get("requestBody", {}).get("content", {})
            out.append({"method": method.upper(), "path": path, "id": op.get("operationId"),
                        "summary": op.get("summary", ""), "description": op.get("description", ""),
                        "parameters": [_parameter(p) for p in params],
                        "body": sorted(body), "responses": responses})
    return out


def _resolve(node: dict, components: dict) -> dict:
    ref = node.get("$ref")
    if not ref:
        return node
    _, _, kind, name = ref.split("/", 3)
    return components[kind][name]


def _parameter(p: dict) -> dict:
    schema = p.get("schema", {})
    if "$ref" in schema:
        schema = {"type": schema["$ref"].rsplit("/", 1)[-1]}
    shape = schema.get("type", "")
    if "enum" in schema:
        shape = " | ".join(map(str, schema["enum"]))
    return {"name": p["name"], "in": p["in"], "required": p.get("required", False),
            "shape": str(shape), "description": p.get("description", "")}


LAYOUT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ledgerline API</title>
<style>
 body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 980px; padding: 0 24px 40px;
        color: #1d1d1f; }
 h2 { margin-top: 32px; } h3 { margin: 28px 0 4px; font-size: 16px; }
 code, .method { font-family: ui-monospace, monospace; }
 .method { font-weight: 700; margin-right: 8px; }
 table { border-collapse: collapse; margin: 6px 0; }
 th, td { padding: 3px 10px; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top; }
 th { background: #f5f5f7; }
</style></head>
<body>{{ body|safe }}</body></html>
"""

DOCS = """<h1>{{ info.title }} API <small>{{ info.version }}</small></h1>
<p>{{ info.summary }}</p>
<p>The machine-readable description: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).
Errors are <code>application/problem+json</code>; their types are listed
<a href="#problems">below</a>.</p>
<h2>Operations</h2>
<ul>{% for op in api %}<li><a href="#{{ op.id }}"><span class="method">{{ op.method }}</span>{{ op.path }}</a>
 — {{ op.summary }}</li>{% endfor %}</ul>
{% for op in api %}
<section id="{{ op.id }}">
<h3><span class="method">{{ op.method }}</span><code>{{ op.path }}</code></h3>
<p>{{ op.summary }}</p>{% if op.description %}<p>{{ op.description }}</p>{% endif %}
{% if op.parameters %}<table><thead><tr><th>parameter</th><th>in</th><th>type</th><th>meaning</th></tr></thead>
<tbody>{% for p in op.parameters %}<tr><td><code>{{ p.name }}</code>{% if p.required %} (required){% endif %}</td>
<td>{{ p.in }}</td><td>{{ p.shape }}</td><td>{{ p.description }}</td></tr>{% endfor %}</tbody></table>{% endif %}
{% if op.body %}<p>Body: {% for c in op.body %}<code>{{ c }}</code>{% if not loop.last %}, {% endif %}{% endfor %}</p>{% endif %}
<table><thead><tr><th>status</th><th>meaning</th><th>headers</th><th>content</th></tr></thead>
<tbody>{% for r in op.responses %}<tr><td>{{ r.status }}</td><td>{{ r.description }}</td>
<td>{% for h in r.headers %}<code>{{ h }}</code> {% endfor %}</td>
<td>{% for c in r.content %}<code>{{ c }}</code> {% endfor %}</td></tr>{% endfor %}</tbody></table>
</section>
{% endfor %}
<h2 id="problems">Problem types</h2>
""" + """{% include_problems %}"""

PROBLEM_TABLE = """<table><thead><tr><th>type</th><th>status</th><th>title</th><th>meaning</th></tr></thead>
<tbody>{% for code, p in problems.items() %}<tr id="{{ code }}"><td><a href="/problems/{{ code }}"><code>{{ code }}</code></a></td>
<td>{{ p.status }}</td><td>{{ p.title }}</td><td>{{ p.explanation }}</td></tr>{% endfor %}</tbody></table>"""

DOCS = DOCS.replace("{% include_problems %}", PROBLEM_TABLE)

PROBLEMS = """<h1>Ledgerline problem types</h1>
<p>Every error answer is <code>application/problem+json</code> (RFC 9457) whose <code>type</code>
is one of these pages and whose <code>code</code> is the same name.</p>""" + PROBLEM_TABLE

PROBLEM = """<h1><code>{{ code }}</code></h1>
<p><b>{{ problem.status }} · {{ problem.title }}</b></p>
<p>{{ problem.explanation }}</p>
<p><a href="/problems">All problem types</a> · <a href="/docs">API documentation</a></p>"""
