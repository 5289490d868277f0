"""The API described by itself: /openapi.json, a rendered /docs page and the problem types.

/openapi.json is generated from the views' models (http/openapi.py). /docs is plain HTML
drawn on the server from the same document: no script, nothing fetched from anywhere else.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated

from flask import Response, render_template, request
from flask_openapi3 import APIBlueprint
from pydantic import WithJsonSchema

from ..domain.errors import NotFound
from .models import HTML_PAGE, PUBLIC, ApiModel, component, json_response, problems
from .openapi import openapi_document
from .problems import catalogue

bp = APIBlueprint("docs", __name__, template_folder="templates")
METHODS = ("get", "post", "put", "patch", "delete")

__all__ = ["bp", "openapi_document"]


@lru_cache(maxsize=1)
def _openapi_json() -> bytes:
    """The document, which names no server, serialised once; each request names its own."""
    return json.dumps(openapi_document(), ensure_ascii=False).encode()


@bp.get("/openapi.json", operation_id="openapi", openapi_extensions=PUBLIC,
        summary="This document, as JSON, with the invoice-v2 schema embedded.",
        description="Its `servers` names the address the request came to (as the client "
        "addressed it, and as the proxies LEDGERLINE_TRUSTED_PROXY_HOPS trusts say), so that a "
        "client generated from it calls this service.",
        responses={200: json_response({"type": "object"}, "OpenAPI 3.1.")})
def openapi_json():
    server = json.dumps([{"url": request.host_url.rstrip("/")}]).encode()
    return Response(b'{"servers": ' + server + b", " + _openapi_json()[1:],
                    mimetype="application/json")


@bp.get("/docs", operation_id="docs", openapi_extensions=PUBLIC,
        summary="This document rendered as an HTML page (no scripts).",
        responses={200: HTML_PAGE})
def docs_page():
    return _html(render_template("docs.html", api=_operations(),
                                 info=openapi_document()["info"], problems=catalogue()))


@bp.get("/problems", operation_id="problemTypes", openapi_extensions=PUBLIC,
        summary="Every problem type, with what it means.", responses={200: HTML_PAGE})
def problem_index():
    return _html(render_template("problems.html", problems=catalogue()))


class ProblemPath(ApiModel):
    # Any text reaches the view, which answers 404 for a code it does not know.
    code: Annotated[str, WithJsonSchema(component("ProblemCode"))]


@bp.get("/problems/<code>", operation_id="problemType", openapi_extensions=PUBLIC,
        summary="One problem type, the page its `type` URI names.",
        responses={200: HTML_PAGE, **problems(404)})
def problem_page(path: ProblemPath):
    problem = catalogue().get(path.code)
    if problem is None:
        raise NotFound("no such problem type")
    return _html(render_template("problem.html", code=path.code, problem=problem))


def _html(body: str) -> Response:
    return Response(body, mimetype="text/html")


def _operations() -> list[dict]:
    document = openapi_document()
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
    ref_ = node.get("$ref")
    if not ref_:
        return node
    _, _, kind, name = ref_.split("/", 3)
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
