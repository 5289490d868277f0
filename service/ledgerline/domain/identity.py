"""Who is calling, and what they may see.

Authorisation is decided here and nowhere else; the cache key never enters into it.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass

ACCOUNT_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}$")


class Role(str, enum.Enum):
    CUSTOMER = "customer"
    SUPPLIER = "supplier"
    DASHBOARD = "dashboard"
    OPERATOR = "operator"


UPLOADING_ROLES = frozenset({Role.CUSTOMER, Role.SUPPLIER})
ACCOUNT_ROLES = frozenset({Role.CUSTOMER, Role.SUPPLIER, Role.DASHBOARD})


def valid_account_name(name: str) -> bool:
    return bool(ACCOUNT_RE.fullmatch(name))


@dataclass(frozen=True)
class Caller:
    key_id: str
    role: Role
    account: str | None
    name: str | None = None
    # The first key of this key's rotations (None: this key itself), see `principal`.
    principal_id: str | None = None

    @property
    def principal(self) -> str:
        """Who this caller is across key rotations: uploads and idempotency keys belong to
        the principal, so a rotated key sees and replays what its predecessor did."""
        return self.principal_id or self.key_id

    def can_enter(self, account: str) -> bool:
        """May this caller see anything at all in `account`? False means 404, never 403."""
        return self.role in ACCOUNT_ROLES and self.account == account

    def can_upload(self) -> bool:
        return self.role in UPLOADING_ROLES

    def sees_only_own_uploads(self) -> bool:
        return self.role is Role.SUPPLIER

    def may_read_invoice(self, account: str, uploaded_by: str) -> bool:
        if not self.can_enter(account):
            return False
        return not self.sees_only_own_uploads() or uploaded_by == self.principal

    def is_operator(self) -> bool:
        return self.role is Role.OPERATOR
