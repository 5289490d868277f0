"""Ledgerline: invoice extraction with an exact per-account cache and idempotent jobs."""
