"""Adapters: the database, the object store and the extractors."""
