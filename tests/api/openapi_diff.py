"""What two OpenAPI documents say differently to a client, wording aside.

`python -m tests.api.openapi_diff OLD.yaml [NEW.yaml]` prints every difference (NEW defaults
to the document the code generates). Both documents are normalised first: references
resolved, path-level parameters moved into their operations, `allOf` of objects merged, a
nullable value written one way, numbers compared as numbers, lists whose order means nothing
sorted; descriptions, summaries and titles are compared apart, as wording.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

METHODS = ("get", "put", "post", "delete", "patch")
WORDING = ("description", "summary", "title")
UNORDERED = ("required", "enum", "type")


def normalise(document: dict) -> tuple[dict, dict]:
    """(contract, wording) of a document: what a client can rely on, and its prose."""
    components = document.get("components", {})
    contract = {"document": _schema({
        "openapi": document["openapi"], "servers": document.get("servers"),
        "security": document.get("security"), "license": document["info"].get("license"),
        "securitySchemes": components.get("securitySchemes")})}
    wording = {"info": [_prose(document["info"])]}
    operations = [(path, item) for path, item in document["paths"].items()]
    operations += [(f"webhook {name}", item) for name, item in document.get("webhooks", {}).items()]
    for path, item in operations:
        shared = item.get("parameters", [])
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            where = f"{method.upper()} {path}"
            op = _resolve(op, components, set())
            params = [_resolve(p, components, set()) for p in shared] + op.get("parameters", [])
            contract[where] = _schema({
                "operationId": op.get("operationId"),
                "security": op.get("security", "inherited"),
                "parameters": {f"{p['in']}:{p['name']}": {
                    "required": p.get("required", False), "schema": p.get("schema", {})}
                    for p in params},
                "requestBody": op.get("requestBody"),
                "responses": op.get("responses", {})})
            wording[where] = {"operation": _prose(op),
                              **{f"{p['in']}:{p['name']}": _prose(p) for p in params},
                              **_nested_prose(_schema({"requestBody": op.get("requestBody"),
                                                       "responses": op.get("responses")},
                                                      wording=True))}
    return contract, wording


def _resolve(node, components: dict, seen: set):
    if isinstance(node, list):
        return [_resolve(v, components, seen) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/"):
        _, _, kind, name = ref.split("/", 3)
        if name.startswith("InvoiceV2") or ref in seen:
            return {"$ref": "invoice-v2"}  # embedded as is; compared by its own tests
        target = components[kind][name.split("/")[0]]
        for part in name.split("/")[1:]:
            target = target[part]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return _resolve({**target, **rest}, components, seen | {ref})
    if ref == "./invoice-v2.schema.json":
        return {"$ref": "invoice-v2"}
    return {k: _resolve(v, components, seen) for k, v in node.items()}


def _schema(node, wording: bool = False):
    """The node normalised; without its wording, unless `wording`."""
    if isinstance(node, list):
        return [_schema(v, wording) for v in node]
    if not isinstance(node, dict):
        return int(node) if isinstance(node, float) and node.is_integer() else node
    node = {k: _schema(v, wording) for k, v in node.items()
            if wording or not (k in WORDING and isinstance(v, str))}
    if isinstance(node.get("allOf"), list) and all(isinstance(p, dict) for p in node["allOf"]):
        merged = {k: v for k, v in node.items() if k != "allOf"}
        for part in node["allOf"]:
            for key, value in part.items():
                if key == "properties":
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required":
                    merged["required"] = sorted(set(merged.get("required", [])) | set(value))
                else:
                    merged[key] = value
        node = merged
    if isinstance(node.get("anyOf"), list) and {"type": "null"} in node["anyOf"]:
        node = {**{k: v for k, v in node.items() if k != "anyOf"}, "oneOf": node["anyOf"]}
    if isinstance(node.get("oneOf"), list) and len(node["oneOf"]) == 2 and {"type": "null"} in node["oneOf"]:
        other = next(o for o in node["oneOf"] if o != {"type": "null"})
        if isinstance(other.get("type"), str) and "$ref" not in other:
            rest = {k: v for k, v in node.items() if k != "oneOf"}
            node = {**other, **rest, "type": [other["type"], "null"]}
    for key in UNORDERED:
        if isinstance(node.get(key), list):
            node[key] = sorted(node[key], key=json.dumps)
    if node.get("default", ...) is None:
        del node["default"]
    return node


def _nested_prose(node, where: str = "") -> dict:
    """Every description and title inside a body or an answer, by where it stands."""
    out = {}
    if isinstance(node, dict):
        prose = _prose(node)
        if prose:
            out[where or "/"] = prose
        for key, value in node.items():
            if not (key in WORDING and isinstance(value, str)):
                out.update(_nested_prose(value, f"{where}/{key}"))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.update(_nested_prose(value, f"{where}/{i}"))
    return out


def _prose(node: dict) -> dict:
    return {k: " ".join(node[k].split()) for k in WORDING if isinstance(node.get(k), str)}


def differences(old, new, where: str = "") -> list[tuple[str, object, object]]:
    """(JSON pointer, old value, new value) of every place the two differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new), key=str):
            out += differences(old.get(key, "<absent>"), new.get(key, "<absent>"),
                               f"{where}/{key}")
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (a, b) in enumerate(zip(old, new)) for d in differences(a, b, f"{where}/{i}")]
    return [] if old == new else [(where, old, new)]


def main(argv: list[str]) -> int:
    old = yaml.safe_load(Path(argv[0]).read_text())
    if len(argv) > 1:
        new = yaml.safe_load(Path(argv[1]).read_text())
    else:
        from ledgerline.http.openapi import openapi_document
        new = openapi_document()
    (old_contract, old_words), (new_contract, new_words) = normalise(old), normalise(new)
    for pointer, a, b in differences(old_contract, new_contract):
        print(f"{pointer}\n  old: {json.dumps(a)[:300]}\n  new: {json.dumps(b)[:300]}")
    reworded = differences(old_words, new_words)
    for pointer, a, b in reworded:
        print(f"reworded {pointer}\n  old: {a}\n  new: {b}")
    print(f"{len(reworded)} places reworded")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
