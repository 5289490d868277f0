"""An extractor that declares it needs no original: the worker fetches nothing, and the job
still goes through the claim, the ledger and the fenced publish."""
from __future__ import annotations

from sqlalchemy import select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import blobs, jobs, model_calls
from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes


class WithoutOriginal(ControlledExtractor):
    needs_original = False

    def __init__(self):
        super().__init__()
        self.paths: list = []

    def extract(self, path, content_hash: str, context=None) -> dict:
        self.paths.append(path)
        return super().extract(path, content_hash, context)


def upload_then_lose_the_original(services) -> str:
    """One upload whose stored original is then deleted: a fetch would fail the job."""
    tenant = make_tenant(services, "acme")
    response = create_app(services).test_client().post(
        "/v1/accounts/acme/invoices", data=pdf_bytes("no-original"),
        headers={"Authorization": f"Bearer {tenant.keys['customer']}",
                 "Content-Type": "application/pdf"})
    assert response.status_code == 202, response.json
    with transaction(services.engine, write=False) as conn:
        key = conn.execute(select(blobs.c.storage_key)).scalar_one()
    services.store.delete(key)
    return response.json["id"]


def job_and_calls(services):
    with transaction(services.engine, write=False) as conn:
        job = conn.execute(select(jobs.c.status, jobs.c.error_code, jobs.c.fencing_token)).one()
        calls = conn.execute(select(model_calls.c.outcome)).scalars().all()
    return job, calls


def test_the_port_declares_whether_the_original_is_needed():
    assert ControlledExtractor().needs_original is True
    assert WithoutOriginal().needs_original is False


def test_an_extractor_without_an_original_is_called_with_none_and_its_result_published(
        make_services):
    extractor = WithoutOriginal()
    services = make_services(extractor=extractor)
    upload_then_lose_the_original(services)
    assert Worker(services, name="w").run_once()
    assert extractor.paths == [None]  # nothing fetched, nothing spooled
    job, calls = job_and_calls(services)
    assert (job.status, job.error_code, job.fencing_token) == ("completed", None, 1)
    assert calls == ["published"]  # the claim opened the call, the fenced publish ended it


def test_an_extractor_that_needs_the_original_still_fetches_it(make_services):
    extractor = ControlledExtractor()
    services = make_services(extractor=extractor)
    upload_then_lose_the_original(services)
    assert Worker(services, name="w").run_once()
    assert extractor.calls == []
    job, calls = job_and_calls(services)
    assert (job.status, job.error_code) == ("failed", "original_missing")
    assert calls == ["unstarted"]
