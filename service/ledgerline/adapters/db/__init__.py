"""SQLAlchemy adapters. The same tables and constraints serve SQLite and PostgreSQL."""
