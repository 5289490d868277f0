"""A hostile upload fails its own invoice with a code; the worker goes straight on to the next."""
from __future__ import annotations

import dataclasses
import io
import threading

import pytest

from ledgerline.adapters.db.accounts import caller_for_key, create_account, create_key
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.invoices import get_invoice
from ledgerline.adapters.sandbox import SandboxedExtractor
from ledgerline.bootstrap import bootstrap, utcnow
from ledgerline.config import Settings
from ledgerline.domain.errors import EmptyBody, UnsupportedFormat
from ledgerline.domain.identity import Role
from ledgerline.service_layer import intake
from ledgerline.service_layer.worker import Worker
from tests.hostile import corpus, misbehaving
from tests.hostile.test_hostile_extraction import LIMITS, real_extractor

ACCOUNT = "acme"


@pytest.fixture
def make_services(tmp_path, migrated_sqlite):
    url = migrated_sqlite(tmp_path / "ledgerline.sqlite3")
    settings = Settings(database_url=url, storage_url=f"file://{tmp_path}/objects")
    built = []

    def make(inner):
        services = bootstrap(settings, extractor=SandboxedExtractor(inner, LIMITS))
        if not built:
            with transaction(services.engine, write=True) as conn:
                create_account(conn, ACCOUNT, utcnow())
        built.append(services)
        return services

    yield make
    for services in built:
        services.engine.dispose()


def customer(services):
    with transaction(services.engine, write=True) as conn:
        secret = create_key(conn, Role.CUSTOMER, ACCOUNT, "customer", utcnow())[1]
        return caller_for_key(conn, secret)


def upload(services, caller, data: bytes) -> intake.Upload:
    return intake.upload(services, caller, ACCOUNT, io.BytesIO(data),
                         idempotency_key=None, fresh=False)


def invoice(services, caller, invoice_id: str) -> dict:
    with transaction(services.engine, write=False) as conn:
        return get_invoice(conn, caller, ACCOUNT, invoice_id)


@pytest.mark.parametrize("make_pdf, code", [
    (corpus.flate_bomb, "pdf_too_large"),
    (corpus.encrypted, "pdf_encrypted"),
    (corpus.kids_loop, "pdf_malformed"),
])
def test_a_hostile_upload_fails_with_its_code_and_the_worker_carries_on(make_services, make_pdf,
                                                                       code):
    services = make_services(real_extractor())
    caller = customer(services)
    worker = Worker(services)
    hostile = upload(services, caller, make_pdf())
    assert worker.run_once()
    failed = invoice(services, caller, hostile.invoice_id)
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == code

    retry = upload(services, caller, make_pdf())  # failures are never served from the cache
    assert retry.outcome.value == "miss" and retry.invoice_id != hostile.invoice_id
    assert worker.run_once()
    assert invoice(services, caller, retry.invoice_id)["error"]["code"] == code

    good = upload(services, caller, corpus.good_invoice())
    assert worker.run_once()
    done = invoice(services, caller, good.invoice_id)
    assert done["status"] == "completed"
    assert done["extraction"]["document"]["pages"] == 1


def test_shutdown_cancels_the_child_and_hands_the_job_back(make_services):
    services = make_services(misbehaving.Sleeps())
    caller = customer(services)
    job = upload(services, caller, corpus.good_invoice())
    threading.Timer(0.5, services.extractor.cancel).start()
    assert Worker(services).run_once()
    handed_back = invoice(services, caller, job.invoice_id)
    assert handed_back["status"] == "pending"


def test_empty_and_non_pdf_bodies_are_refused_at_upload(make_services):
    services = make_services(misbehaving.ReportsPid())
    caller = customer(services)
    with pytest.raises(EmptyBody):
        upload(services, caller, corpus.zero_bytes())
    with pytest.raises(UnsupportedFormat):
        upload(services, caller, corpus.not_a_pdf())
    assert not Worker(services).run_once()  # nothing was queued


def test_the_limits_are_read_from_the_environment():
    settings = Settings.from_env({
        "LEDGERLINE_EXTRACT_TIMEOUT_SECONDS": "7.5", "LEDGERLINE_EXTRACT_MEMORY_MB": "300",
        "LEDGERLINE_EXTRACT_MAX_PAGES": "12", "LEDGERLINE_EXTRACT_MAX_DECOMPRESSED_MB": "34"})
    from ledgerline.adapters.sandbox import SandboxLimits

    assert SandboxLimits.from_settings(settings) == SandboxLimits(
        timeout_seconds=7.5, memory_mb=300, max_pages=12, max_decompressed_mb=34)
    defaults = SandboxLimits.from_settings(Settings.from_env({}))
    assert dataclasses.astuple(defaults)[:4] == (60.0, 1024, 200, 200)


def test_the_sandbox_is_the_default_extractor(tmp_path):
    pytest.importorskip("ledgerline.extraction", reason="the extraction package is not built yet")
    url = f"sqlite:///{tmp_path}/ledgerline.sqlite3"
    services = bootstrap(Settings(database_url=url, storage_url=f"file://{tmp_path}/objects"))
    try:
        assert isinstance(services.extractor, SandboxedExtractor)
    finally:
        services.engine.dispose()
