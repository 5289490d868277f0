"""The HTTP edge: thin views over the service layer.

Adding an endpoint is one view and the models beside it, in the module of its resource
(invoices.py, webhooks.py, …), for example:

    class ExportQuery(PageQuery):                     # the query: validated before the view
        format: Literal["csv", "xlsx"] = "csv"

    class Export(Strict):                             # the answer: documents the body
        items: list[InvoiceSummary]

    @bp.get("/v1/accounts/<account>/exports", operation_id="exportInvoices",
            summary="…", responses={200: json_response(Export, "…"),
                                    **problems(400, 401, 404, 429)})
    def export(path: AccountPath, query: ExportQuery):
        return jsonify(service_layer_call(…))

- `path`, `query` (and `header`) arguments are pydantic models (models.ApiModel) that the
  extension (flask-openapi3) validates before the view runs: a refusal is 400 `bad_request`
  naming the parameter, a malformed id 404 (problems.invalid_request).
- A JSON body the domain checks with its own problem codes is read with
  `invoices.json_object()` and documented with `openapi_extensions=json_body(Model)`; headers
  on a hot path likewise with `header_parameters(Model)`.
- Answers: `json_response(Model or schema, description, **headers)`, shared ones by
  `problems(...)`, `PROBLEM`, `HTML_PAGE`; `PUBLIC` for an operation without a key.
- A new error is a class with status, code, title and explanation (domain/errors.py): its
  problem page and the document's ProblemCode follow.
- Then `python -m ledgerline.http.openapi > schemas/openapi.yaml`;
  tests/api/test_openapi_fuzz.py checks the new operation against what it declares.
"""
