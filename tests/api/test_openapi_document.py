"""The OpenAPI document is generated from the views' models (http/openapi.py), and it says what
the hand-kept document it replaced said.

`openapi_hand_kept.yaml` is that document as it was last written by hand; the generated one
must promise a client the same operations, parameters, bodies, answers, headers and schemas,
word for word (tests/api/openapi_diff.py normalises away how each is written down: references,
`allOf`, nullable forms, path-level parameters). When the API changes on purpose, change the
hand-kept copy with it, or drop it and this test once the change has settled.
"""
from __future__ import annotations

import yaml

from ledgerline.http.openapi import as_yaml, openapi_document
from tests.api.openapi_diff import differences, normalise
from tests.conftest import REPO

HAND_KEPT = REPO / "tests" / "api" / "openapi_hand_kept.yaml"


# The hand-kept YAML wrote two descriptions in a flow mapping, `{…, description: A decimal
# string, as in invoice-v2.}`, where the comma ends the description and makes a key
# "as in invoice-v2." with no value: the generated document says what was meant.
# The hand-kept copy was written out from the generated document when the finance views
# (exports, the review screen, If-Match) changed the API on purpose: no slips left in it.
SLIPS: set = set()
REWORDED: set = set()


def test_the_generated_document_promises_what_the_hand_kept_one_did():
    old_contract, old_words = normalise(yaml.safe_load(HAND_KEPT.read_text()))
    new_contract, new_words = normalise(openapi_document())
    assert {pointer for pointer, _, _ in differences(old_contract, new_contract)} == SLIPS
    assert {pointer for pointer, _, _ in differences(old_words, new_words)} == REWORDED


def test_a_changed_answer_is_a_difference():
    document = openapi_document()
    changed = yaml.safe_load(yaml.safe_dump(document))
    changed["paths"]["/healthz"]["get"]["responses"]["200"]["content"]["application/json"][
        "schema"] = {"$ref": "#/components/schemas/Readiness"}
    found = [pointer for pointer, _, _ in differences(normalise(document)[0],
                                                      normalise(changed)[0])]
    assert found and all(pointer.startswith("/GET /healthz/responses/200/") for pointer in found)


def test_schemas_openapi_yaml_is_the_generated_document():
    kept = (REPO / "schemas" / "openapi.yaml").read_text()
    assert kept == as_yaml(openapi_document()), (
        "schemas/openapi.yaml is out of date: python -m ledgerline.http.openapi > "
        "schemas/openapi.yaml")


def test_every_route_of_the_app_is_documented(api_env):
    app = api_env.app()
    paths = openapi_document()["paths"]
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = rule.rule.replace("<", "{").replace(">", "}")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert method.lower() in paths.get(path, {}), (method, path)
