"""PostgreSQL: a job's hot path as one statement per write (data-modifying CTEs in
autocommit), workers and waiting requests told by NOTIFY."""
from __future__ import annotations

from sqlalchemy.dialects import postgresql

from ..dialect import Dialect
from ..engine import postgresql_kind, postgresql_snapshot
from .arrival import PostgresArrival
from .claims import PostgresClaims

DIALECT = Dialect(name="postgresql", insert=postgresql.insert, arrival=PostgresArrival,
                  claims=PostgresClaims, kind=postgresql_kind, snapshot=postgresql_snapshot,
                  hit_writes=False, notifies=True)
