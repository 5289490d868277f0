"""An account and a caller of each role (a second supplier too, and the first supplier's key
rotated: another key of the same principal), made on the in-memory store or on a SQL database:
what the contract and use-case tests start from."""
from __future__ import annotations

from sqlalchemy import Engine

from ledgerline.adapters.db.accounts import caller_for_key, create_account, create_key
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.keys import rotate
from ledgerline.adapters.memory import MemoryDatabase
from ledgerline.bootstrap import utcnow
from ledgerline.domain.identity import Caller, Role
from ledgerline.domain.ids import new_id

ROLES = ("customer", "supplier", "supplier2", "dashboard")
ROTATED = "supplier_rotated"  # the supplier's key after a rotation: the same principal
GRACE = 3600.0  # the supplier's key keeps working through the tests


def _role(name: str) -> Role:
    return Role(name.rstrip("2"))


def memory_tenant(db: MemoryDatabase, account: str) -> dict[str, Caller]:
    db.add_account(account)
    callers = {}
    for name in ROLES:
        caller = Caller(new_id("key"), _role(name), account, f"{name} of {account}")
        db.add_key(caller)
        callers[name] = caller
    supplier = callers["supplier"]
    callers[ROTATED] = Caller(new_id("key"), supplier.role, account, supplier.name,
                              principal_id=supplier.key_id)
    db.add_key(callers[ROTATED])
    return callers


def sql_tenant(engine: Engine, account: str) -> dict[str, Caller]:
    with transaction(engine, write=True) as conn:
        create_account(conn, account, utcnow())
        secrets = {name: create_key(conn, _role(name), account, f"{name} of {account}",
                                    utcnow()) for name in ROLES}
        secrets[ROTATED] = rotate(conn, secrets["supplier"][0], GRACE, utcnow())
    with transaction(engine, write=False) as conn:
        return {name: caller_for_key(conn, secret) for name, (_, secret) in secrets.items()}
