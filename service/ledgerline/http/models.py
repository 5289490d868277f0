"""What every view's models are built from: the base model, the shapes several views share, and
the answers every operation may give (problems).

Each view declares its own request and response models beside it (http/invoices.py, …); the
OpenAPI document is generated from them (http/openapi.py). A model whose field the domain
checks with its own problem code (a report day: `invalid_day`) documents the shape with
`documented(...)` and leaves the check to the domain, so that the answer stays the same.
"""
from __future__ import annotations

import inspect
from enum import Enum
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema
from pydantic.json_schema import GenerateJsonSchema, SkipJsonSchema

REF = "#/components/schemas/{model}"


class _Generator(GenerateJsonSchema):
    """JSON Schema as the document writes it: no generated titles, no `default: null`, no
    docstrings."""

    def field_title_should_be_set(self, schema) -> bool:
        return False

    def model_schema(self, schema):
        out = super().model_schema(schema)
        out.pop("title", None)
        # A model's docstring speaks to whoever reads the code, not to the API's clients.
        if schema["cls"].__doc__ and out.get("description") == inspect.cleandoc(
                schema["cls"].__doc__):
            del out["description"]
        return out

    def enum_schema(self, schema):
        out = super().enum_schema(schema)
        out.pop("title", None)
        return out

    def default_schema(self, schema):
        out = super().default_schema(schema)
        if schema.get("default", ...) is None:
            out.pop("default", None)
        return out


class ApiModel(BaseModel):
    """A request or response shape. Its JSON Schema is computed once per class: the Flask
    extension asks for a query model's schema on every request."""

    model_config = ConfigDict(regex_engine="python-re")
    _schemas: ClassVar[dict] = {}
    by_name: ClassVar[dict[str, type[ApiModel]]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs):
        super().__pydantic_init_subclass__(**kwargs)
        ApiModel.by_name[cls.__name__] = cls

    @classmethod
    def model_json_schema(cls, by_alias: bool = True, ref_template: str = REF,
                          schema_generator=_Generator, mode="validation", **_) -> dict:
        key = (cls, by_alias, ref_template, mode)
        cached = ApiModel._schemas.get(key)
        if cached is None:
            cached = ApiModel._schemas[key] = _with_refs(super().model_json_schema(
                by_alias=by_alias, ref_template=ref_template, schema_generator=_Generator,
                mode=mode))
        return cached


class Strict(ApiModel):
    """A shape that takes no other keys (`additionalProperties: false`)."""
    model_config = ConfigDict(extra="forbid", regex_engine="python-re")


def documented(schema: dict, python_type: Any = str | None) -> Any:
    """A field the domain validates itself: the document shows `schema`, the model takes any
    `python_type` and the view hands it to the domain's parser."""
    return Annotated[python_type, WithJsonSchema(schema)]


def ref(name: str) -> dict:
    """A reference to a component of the document, in an operation's answers or body."""
    return {"$ref": f"#/components/schemas/{name}"}


def component(name: str) -> dict:
    """The same inside a model's schema (WithJsonSchema), written `x-ref` until the schema is
    generated: pydantic insists on resolving every `$ref` it meets to a model of its own."""
    return {"x-ref": name}


def _with_refs(node):
    """Every `x-ref` of a generated schema as the `$ref` it stands for."""
    if isinstance(node, dict):
        return {("$ref" if key == "x-ref" else key):
                (f"#/components/schemas/{value}" if key == "x-ref" else _with_refs(value))
                for key, value in node.items()}
    if isinstance(node, list):
        return [_with_refs(v) for v in node]
    return node


def _bound(key: str, value):
    # The extension's schema objects hold bounds as floats: 1, not 1.0, as the model says.
    if key in BOUNDS and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def finished(node):
    """A generated schema as the document writes it: `$ref`s, no class names as titles, and a
    nullable value (pydantic's `anyOf` with null, which the extension's schema objects
    insist on) as `type: [T, "null"]`, or `oneOf` with null for a reference."""
    if isinstance(node, list):
        return [finished(v) for v in node]
    if not isinstance(node, dict):
        return node
    # A title is pydantic's class name; a property called `title` is a schema, not a string.
    node = {key: _bound(key, finished(value)) for key, value in _with_refs(node).items()
            if not (key == "title" and isinstance(value, str))}
    alternatives = node.get("anyOf")
    if isinstance(alternatives, list) and len(alternatives) == 2 and {"type": "null"} in alternatives:
        other = next(a for a in alternatives if a != {"type": "null"})
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        if isinstance(other.get("type"), str):
            return {**other, **rest, "type": [other["type"], "null"]}
        return {**rest, "oneOf": [{"type": "null"}, other]}
    return node


def nullable(schema: dict) -> dict:
    return {"oneOf": [{"type": "null"}, schema]}


# --- shapes several views share ------------------------------------------------------------

class Status(str, Enum):
    pending = "pending"
    running = "running"
    completed = "completed"
    failed = "failed"


DATE = {"description": "An ISO calendar date, YYYY-MM-DD.", "type": "string", "format": "date",
        "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
REPORT_DAY = {"description": "A UTC day of the reports, YYYY-MM-DD, from 1970-01-01 to "
              "9998-12-31.", "type": "string", "format": "date",
              "pattern": "^(19[7-9][0-9]|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])"
                         "-[0-9]{2}-[0-9]{2}$"}
# Components written as JSON Schema that models and answers refer to by name (component(),
# ref()); http/openapi.py puts them in the document.
SCHEMAS = {"Date": DATE, "ReportDay": REPORT_DAY}


def schema_component(name: str, schema: dict) -> dict:
    SCHEMAS[name] = schema
    return schema

ACCOUNT = Field(pattern=r"^[a-z0-9][a-z0-9-]{1,62}$")
ISSUED_ID = "An id this service issued; anything else is 404, like an id that does not exist."


class AccountPath(ApiModel):
    account: Annotated[str, ACCOUNT]


class InvoicePath(AccountPath):
    invoice_id: Annotated[str, Field(pattern=r"^inv_[A-Za-z0-9]{1,28}$",
                                     description=ISSUED_ID)]


class WebhookPath(AccountPath):
    webhook_id: Annotated[str, Field(pattern=r"^whk_[A-Za-z0-9]{1,28}$",
                                     description=ISSUED_ID)]


# A path identifier that does not match names nothing: 404, like a missing one (not 400).
NOT_FOUND_WHEN_MALFORMED = {"invoice_id": "no such invoice", "webhook_id": "no such webhook"}
# What a refused parameter is told (400 `bad_request`); any other: its name and pydantic's
# message.
REFUSALS = {
    "account": "account names are 2-63 characters of a-z, 0-9 and '-'",
    "limit": "limit must be an integer between 1 and 200",
    "format": "format must be json, csv or xlsx",
    "excel": "excel must be 1 or 0 (true or false)",
    "rows": "rows must be invoices or line_items (CSV: one row per line item)",
    "review": "review must be required or resolved",
    "seller": "seller must be 1-200 printable characters, not only spaces",
    "issued_from": "issued_from must be an ISO date (YYYY-MM-DD)",
    "issued_to": "issued_to must be an ISO date (YYYY-MM-DD)",
    "cursor": "cursor is not one this service issued",
}

LIMIT = Annotated[int, Field(ge=1, le=200)]


# --- answers ---------------------------------------------------------------------------------

def header(schema: dict, description: str | None = None) -> dict:
    return {"schema": schema, **({"description": description} if description else {})}


# An operation anyone may call, without a key.
PUBLIC = {"security": []}
LOCATION = {"Location": header({"type": "string"})}
RETRY_AFTER = header({"type": "string", "pattern": "^[1-9][0-9]*$"},
                     "Seconds until a retry can succeed.")
class Problem(ApiModel):
    """An error answer (application/problem+json); http/problems.py writes it."""
    type: Annotated[str, Field(
        pattern="^/problems/[a-z_]+$", json_schema_extra={"format": "uri-reference"},
        description="`/problems/<code>`: resolved against the request URL, a page explaining "
                    "the problem.")]
    code: Annotated[str, WithJsonSchema(component("ProblemCode"))]
    title: str
    status: int
    detail: str | SkipJsonSchema[None] = None
    instance: str | SkipJsonSchema[None] = None


# Answers many operations give, written once as components (http/openapi.py puts them in the
# document); an operation names them with `answer(name)`.
RESPONSES = {
    "Problem": {"description": "An RFC 9457 problem.",
                "content": {"application/problem+json": {"schema": ref("Problem")}}},
    "TooManyRequests": {
        "description": "Too many requests for this key (`rate_limited`), too many in flight at "
                       "once (`too_many_in_flight`), too many failed authentications from this "
                       "address or with this key prefix (`too_many_auth_failures`, never for a "
                       "working key), or too many dashboard sign-ins with this key "
                       "(`too_many_sign_ins`).",
        "headers": {"Retry-After": RETRY_AFTER},
        "content": {"application/problem+json": {"schema": ref("Problem")}}},
    "Html": {"description": "An HTML page.",
             "content": {"text/html": {"schema": {"type": "string"}}}},
}


def answer(name: str) -> dict:
    return {"$ref": f"#/components/responses/{name}"}


PROBLEM, HTML_PAGE = answer("Problem"), answer("Html")


def problems(*statuses: int) -> dict:
    """The problem answers an operation declares: 429 with Retry-After, the others plain."""
    return {status: answer("TooManyRequests") if status == 429 else PROBLEM
            for status in statuses}


def json_response(model: type[ApiModel] | dict, description: str, **headers) -> dict:
    """A JSON answer whose body is `model` (a model class or a schema)."""
    schema = documented_ref(model) if isinstance(model, type) else model
    out = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        out["headers"] = {name.replace("_", "-"): value for name, value in headers.items()}
    return out


def header_parameters(model: type[ApiModel]) -> dict:
    """Request headers that `model` documents and the view reads itself (http/headers.py):
    on the cache-hit path the extension's header validation would cost more than the hit's
    own parsing. Given as the operation's `openapi_extensions`; http/openapi.py lists them
    among its parameters."""
    schema = model.model_json_schema()
    out = []
    for name, prop in schema["properties"].items():
        description = prop.get("description")
        parameter = {"name": name, "in": "header",
                     "schema": {k: v for k, v in prop.items() if k != "description"}}
        if description:
            parameter["description"] = description
        out.append(parameter)
    return {HEADER_PARAMETERS: out}


HEADER_PARAMETERS = "x-header-parameters"


def json_body(model: type[ApiModel], *, required: bool = True,
              description: str | None = None) -> dict:
    """A JSON request body that the domain parses (its own problem codes); `model` documents
    it. Given as the operation's `openapi_extensions`."""
    out = {"required": required,
           "content": {"application/json": {"schema": documented_ref(model)}}}
    if description:
        out["description"] = description
    return {"requestBody": out}


# The events this service sends to webhook endpoints (the document's top-level `webhooks`).
SENT_EVENTS: dict[str, dict] = {}


def sent_event(name: str, body: type[ApiModel], *, summary: str, answer: str,
               description: str | None = None) -> None:
    operation = {"operationId": name, "summary": summary,
                 **({"description": description} if description else {}),
                 "requestBody": {"content": {"application/json": {
                     "schema": documented_ref(body)}}},
                 "responses": {"200": {"description": answer}}}
    SENT_EVENTS[name] = {"post": operation}


# Models the document names that the extension does not see (answers, bodies the domain
# parses): http/openapi.py adds their schemas as components.
DOCUMENTED_MODELS: dict[str, type[ApiModel]] = {}


def documented_ref(model: type[ApiModel]) -> dict:
    DOCUMENTED_MODELS[model.__name__] = model
    return ref(model.__name__)


documented_ref(Problem)
