"""The database and object store ports in memory (database.py says what for, and what it
promises): `bootstrap(settings, db=MemoryDatabase(), store=MemoryObjectStore(), ...)`."""
from __future__ import annotations

from .database import MemoryDatabase
from .storage import MemoryObjectStore

__all__ = ["MemoryDatabase", "MemoryObjectStore"]
