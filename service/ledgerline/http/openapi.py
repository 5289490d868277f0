"""The OpenAPI document, generated from the views' models (flask-openapi3) and completed with
what belongs to the whole API: its description, security schemes, the problem codes
(http/problems.py) and the invoice-v2 JSON Schema embedded as a component, so that the
document is complete without a second file. It names no server: /openapi.json names the one
each request came to (http/docs.py), so that a client generated from it calls that service.

`schemas/openapi.yaml` is this document written out (`python -m ledgerline.http.openapi`, kept in step by
tests/api/test_openapi_document.py), for readers and tools that do not run the service.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files

import yaml
from flask_openapi3 import Info, OpenAPI

from .. import __version__
from .models import (DOCUMENTED_MODELS, HEADER_PARAMETERS, REF, RESPONSES, SCHEMAS, SENT_EVENTS,
                     finished)

INFO = {
    "title": "Ledgerline",
    "summary": "Invoice extraction with an exact per-account result cache and idempotent jobs.",
    "description": "Every call except `/healthz`, `/readyz` and the documentation "
    "(`/openapi.json`, `/docs`, `/problems`) needs `Authorization: Bearer <key>`; `/metrics` "
    "takes an operator key or the metrics token (`LEDGERLINE_METRICS_TOKEN`). Errors are "
    "`application/problem+json` (RFC 9457) with a stable `code`; their `type` is "
    "`/problems/<code>`, a page of this service that says what the problem means. A resource "
    "outside the caller's grants answers 404, exactly like one that does not exist; a known "
    "caller doing what its role forbids inside its own account answers 403. 429 always "
    "carries `Retry-After` (seconds).\n",
    "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
}
SECURITY_SCHEMES = {
    "bearer": {"type": "http", "scheme": "bearer"},
    "operatorCookie": {"type": "apiKey", "in": "cookie", "name": "ledgerline_operator",
                       "description": "A signed dashboard session id (POST /dashboard/login), "
                                      "never a key."},
}
# Files the document refers to, and the component each becomes when embedded.
EMBEDDED = {"invoice-v2.schema.json": "InvoiceV2"}
VALIDATION_STATUS = "400"  # what the extension answers a refused path or query with


def blueprints() -> list:
    """Every blueprint of the API, in the order of the document."""
    from . import dashboard, docs, invoices, ops, reports, review_screen, webhooks
    return [invoices.bp, webhooks.bp, reports.bp, dashboard.bp, review_screen.bp, ops.bp,
            docs.bp]


def new_app(import_name: str = "ledgerline", **kwargs) -> OpenAPI:
    """A Flask application whose views declare the document."""
    from .problems import invalid_request
    return OpenAPI(import_name, info=Info(title=INFO["title"], version=__version__),
                   security_schemes=SECURITY_SCHEMES, doc_ui=False,
                   validation_error_status=int(VALIDATION_STATUS),
                   validation_error_callback=invalid_request, **kwargs)


@lru_cache(maxsize=1)
def openapi_document() -> dict:
    """The document, as served at /openapi.json."""
    app = new_app("ledgerline.openapi")
    for bp in blueprints():
        app.register_api(bp)
    return complete(app.api_doc)


def complete(generated: dict) -> dict:
    from .problems import problem_code_schema
    document = {"openapi": generated["openapi"],
                "info": {**INFO, "version": __version__},
                "security": [{"bearer": []}],
                "paths": finished({path: {method: _operation(op) for method, op in item.items()}
                                   for path, item in generated["paths"].items()}),
                "webhooks": SENT_EVENTS}
    schemas = {name: schema for name, schema in generated["components"]["schemas"].items()
               if name != "ValidationErrorModel"}
    schemas.update(SCHEMAS)
    schemas.update(_documented_models())
    schemas["ProblemCode"] = problem_code_schema()
    for filename, component in EMBEDDED.items():
        schemas[component] = _embeddable(json.loads(_schema_file(filename)),
                                         f"#/components/schemas/{component}")
    document["components"] = {"securitySchemes": generated["components"]["securitySchemes"],
                              "responses": RESPONSES,
                              "schemas": finished(dict(sorted(schemas.items())))}
    return json.loads(json.dumps(document))


def _operation(operation: dict) -> dict:
    """An operation as the extension wrote it, less what it adds of its own: a `default` tag,
    a 400 with its validation-error model on every operation that declares none (those that
    can answer 400 declare it as a problem), and each parameter's description repeated in its
    schema."""
    operation = {k: v for k, v in operation.items() if k != "tags"}
    answer = operation["responses"].get(VALIDATION_STATUS, {})
    if "ValidationErrorModel" in json.dumps(answer):
        operation["responses"] = {k: v for k, v in operation["responses"].items()
                                  if k != VALIDATION_STATUS}
    # A reference to a shared answer: the extension gives it a description of its own too.
    operation["responses"] = {status: ({"$ref": answer["$ref"]} if "$ref" in answer else answer)
                              for status, answer in operation["responses"].items()}
    headers = operation.pop(HEADER_PARAMETERS, [])
    if "parameters" in operation or headers:
        operation["parameters"] = [_parameter(p) for p in operation.get("parameters", [])]
        operation["parameters"] += headers
    return operation


def _parameter(parameter: dict) -> dict:
    schema = parameter.get("schema", {})
    if "description" in schema and schema["description"] == parameter.get("description"):
        schema = {k: v for k, v in schema.items() if k != "description"}
    return {**parameter, "schema": schema}


def _documented_models() -> dict:
    """Schemas of the models the views name without the extension seeing them, with every
    model they refer to."""
    out, done = {}, set()
    while len(done) < len(DOCUMENTED_MODELS):
        for name, model in list(DOCUMENTED_MODELS.items()):
            if name in done:
                continue
            done.add(name)
            schema = dict(model.model_json_schema(ref_template=REF, mode="serialization"))
            out.update(schema.pop("$defs", {}))
            out[name] = schema
    return out


def _refs_to_files(document: dict) -> dict:
    schemas = {k: v for k, v in document["components"]["schemas"].items()
               if k not in EMBEDDED.values()}
    document = {**document, "components": {**document["components"], "schemas": schemas}}
    text = json.dumps(document, ensure_ascii=False)
    for filename, component in EMBEDDED.items():
        text = text.replace(f'"#/components/schemas/{component}"', f'"./{filename}"')
    return json.loads(text)


def _schema_file(name: str) -> str:
    return (files("ledgerline") / "schemas" / name).read_text(encoding="utf-8")


def _embeddable(schema: dict, pointer: str) -> dict:
    """A standalone JSON Schema as an OpenAPI component: its own `#/$defs/…` become absolute."""
    schema = {k: v for k, v in schema.items() if k not in ("$schema", "$id")}
    return _absolute_refs(schema, pointer)


def _absolute_refs(node, pointer: str):
    if isinstance(node, dict):
        return {key: (pointer + value[1:] if key == "$ref" and isinstance(value, str)
                      and value.startswith("#/") else _absolute_refs(value, pointer))
                for key, value in node.items()}
    if isinstance(node, list):
        return [_absolute_refs(v, pointer) for v in node]
    return node


def as_yaml(document: dict) -> str:
    """The document as schemas/openapi.yaml keeps it: invoice-v2 stays its own file, beside."""
    document = _refs_to_files(document)
    return ("# Generated from the code by `python -m ledgerline.http.openapi`: do not edit by hand.\n"
            "# The served document (/openapi.json) carries the running release as its version.\n"
            + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100))


if __name__ == "__main__":
    print(as_yaml(openapi_document()), end="")
