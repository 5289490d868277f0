"""What differs between the two SQL dialects, as one value each (postgresql/, sqlite/), chosen
once when the database is opened (database.py): no statement on a hot path asks which dialect
it runs on."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from sqlalchemy import Connection, Engine

from .arrival import SqlArrival
from .claims import SqlClaims
from .engine import Kind


@dataclass(frozen=True)
class Dialect:
    name: str
    insert: Callable              # the dialect's INSERT, which knows ON CONFLICT
    arrival: type[SqlArrival]     # how a cache hit is recorded, how workers are woken
    claims: type[SqlClaims]       # the claim that opens a call, the publish that ends it
    kind: Kind                    # how each kind of transaction begins (engine.transaction)
    snapshot: Callable[[Engine], AbstractContextManager[Connection]]  # an export's reads
    hit_writes: bool              # a cache hit runs in a write transaction (else autocommit)
    notifies: bool                # other processes hear of new work and ended jobs (NOTIFY)
