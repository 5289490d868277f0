import pytest

from ledgerline.domain.identity import Caller, Role, valid_account_name


def caller(role, account="acme", key="key_me"):
    return Caller(key_id=key, role=Role(role), account=account)


@pytest.mark.parametrize("name, ok", [
    ("acme", True), ("a1", True), ("acme-gmbh", True), ("a" * 63, True),
    ("a", False), ("-acme", False), ("Acme", False), ("a" * 64, False), ("ac me", False),
    ("../x", False),
])
def test_account_names(name, ok):
    assert valid_account_name(name) is ok


@pytest.mark.parametrize("role", ["customer", "supplier", "dashboard"])
def test_account_roles_enter_only_their_own_account(role):
    assert caller(role).can_enter("acme")
    assert not caller(role).can_enter("globex")


def test_operators_enter_no_account():
    assert not Caller("key_op", Role.OPERATOR, None).can_enter("acme")


def test_only_customers_and_suppliers_upload():
    assert caller("customer").can_upload() and caller("supplier").can_upload()
    assert not caller("dashboard").can_upload()
    assert not Caller("key_op", Role.OPERATOR, None).can_upload()


def test_suppliers_read_only_their_own_uploads():
    supplier = caller("supplier")
    assert supplier.may_read_invoice("acme", uploaded_by="key_me")
    assert not supplier.may_read_invoice("acme", uploaded_by="key_customer")


@pytest.mark.parametrize("role", ["customer", "dashboard"])
def test_customers_and_dashboards_read_the_whole_account(role):
    assert caller(role).may_read_invoice("acme", uploaded_by="key_supplier")
    assert not caller(role).may_read_invoice("globex", uploaded_by="key_supplier")
