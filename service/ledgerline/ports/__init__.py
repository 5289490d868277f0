"""Ports: what the use cases (service_layer) need from the world, as protocols and the values
that cross them. Adapters implement them; `bootstrap` chooses which.

- `database`: transactions, each handing out the stores below; its own errors.
- `jobs`: arrival (create-or-get, the cache hit), claims (claim, renew, publish, fail,
  release) and the call ledger.
- `invoices`: invoice reads, corrections, deletion, and the webhook events a change writes.
- `storage`: the object store for originals.
- `extractor`: what reads an invoice, and the errors it ends in.
- `clock`: time and waits, so that a test can move time instead of sleeping.

Every database implementation (adapters/db on SQLite and PostgreSQL, adapters/memory) passes
the same contract tests (tests/contract). Nothing here imports an adapter.
"""
