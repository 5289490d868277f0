"""Use cases: upload, work on jobs, read. Thin over the domain rules and adapters."""
