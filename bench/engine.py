"""The job engine like for like: Ledgerline's queue against procrastinate's, neither fetching.

1. jobs/s through one real worker process (bench/stub_worker.py --no-original: the real worker
   loop, claim -> start call -> publish -> finish call under lease and fencing token, with a
   stand-in extractor that declares it needs no original and answers at once), next to
   procrastinate's no-op jobs (bench/peer_procrastinate.py) on the same PostgreSQL, concurrency
   1 and 4, rounds interleaved (ours, peer, ours, peer) so that load on the machine falls on
   both alike; the ratio is of the medians of the rounds.
2. the original's fetch timed apart: the worker's fetch (service_layer/originals.py: the
   service's S3 store adapter with the service's client configuration, into a file, the bytes
   checked against the content hash) against a bare HTTP GET of the same object from the same
   SeaweedFS (http.client over one keep-alive connection, a presigned URL made once beforehand,
   into a file), interleaved, medians compared.
"""
from __future__ import annotations

import http.client
import os
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from ledgerline.adapters.storage import S3ObjectStore
from ledgerline.service_layer.originals import fetch_original

CONCURRENCIES = (1, 4)
# The service's own S3 client settings (adapters/storage.py, S3ObjectStore).
SERVICE_S3_CONFIG = dict(connect_timeout=2, read_timeout=5,
                         retries={"max_attempts": 2, "mode": "standard"})


def bench_engine(pg, s3, work: Path, quick: bool) -> dict:
    from bench import production as p
    from bench.stub_worker import StandInModel

    jobs, rounds, fetches = (300, 1, 100) if quick else (1000, 3, 400)
    versions = StandInModel(0).versions.label
    out: dict = {"jobs": jobs, "rounds": rounds}
    with p.cluster(pg, s3, p.BUCKET, work / "engine", template=p.TEMPLATE, **p.ENV) as c:
        c.create_tenant()
        sample = work / "engine-sample.pdf"
        sample.write_bytes(p.typical_pdf().read_bytes())
        original = p.store_original(c, sample)
        out["file_bytes"] = sample.stat().st_size

        peer_db = pg.create_database(f"peer_engine_{os.getpid()}")
        ours = {n: [] for n in CONCURRENCIES}
        peer = {n: [] for n in CONCURRENCIES}
        rss = {n: 0.0 for n in CONCURRENCIES}
        peer_rss = {n: 0.0 for n in CONCURRENCIES}
        for r in range(rounds):
            for n in CONCURRENCIES:
                rate, peak = p.worker_jobs_per_second(c, 1, n, jobs, original,
                                                      f"engine{r}x{n}", versions, "--no-original")
                ours[n].append(rate)
                rss[n] = max(rss[n], peak)
                got = p.procrastinate_jobs_per_second(peer_db, jobs, n,
                                                      first=r == 0 and n == CONCURRENCIES[0])
                peer[n].append(got["jobs_per_second"])
                peer_rss[n] = max(peer_rss[n], got["peak_rss_mib"])
        failed = c.scalar("SELECT count(*) FROM jobs WHERE status <> 'completed'")
        assert failed == 0, f"{failed} engine jobs did not complete"
        calls = c.scalar("SELECT count(*) FROM model_calls WHERE outcome = 'published'")
        assert calls == jobs * rounds * len(CONCURRENCIES), calls
        for n in CONCURRENCIES:
            mine, theirs = statistics.median(ours[n]), statistics.median(peer[n])
            out[f"c{n}"] = {"jobs_per_second": mine, "peer_jobs_per_second": theirs,
                            "ratio": mine / theirs, "rounds": ours[n], "peer_rounds": peer[n],
                            "worker_peak_rss_mib": rss[n], "peer_peak_rss_mib": peer_rss[n]}
        out["ratio_c1"], out["ratio_c4"] = out["c1"]["ratio"], out["c4"]["ratio"]
        out["fetch"] = time_fetch(s3, c.store, original, fetches)
        out["fetch_ratio"] = out["fetch"]["ratio"]
    return out


def time_fetch(s3, cluster_store, original: tuple[str, str], n: int) -> dict:
    """The worker's fetch (through the store adapter, checked against the content hash)
    against a bare GET of the same object, interleaved."""
    key, content_hash = original
    store = S3ObjectStore(cluster_store.bucket, cluster_store.prefix,
                          client=s3.client(**SERVICE_S3_CONFIG))
    url = urlsplit(store.client.generate_presigned_url(
        "get_object", Params={"Bucket": store.bucket, "Key": store._key(key)}, ExpiresIn=3600))
    target = f"{url.path}?{url.query}"
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    adapter, bare = [], []
    size = None
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "original"
        for i in range(-10, n):  # -10..-1: warm both connections, not counted
            with open(dest, "wb") as f:
                started = time.perf_counter()
                fetch_original(store, key, content_hash, f)
                took_adapter = time.perf_counter() - started
            with open(dest, "wb") as f:
                started = time.perf_counter()
                conn.request("GET", target)
                response = conn.getresponse()
                assert response.status == 200, response.status
                while chunk := response.read(1 << 20):
                    f.write(chunk)
                took_bare = time.perf_counter() - started
            size = dest.stat().st_size
            if i >= 0:
                adapter.append(took_adapter)
                bare.append(took_bare)
    conn.close()
    store.client.close()
    adapter_ms = statistics.median(adapter) * 1000
    bare_ms = statistics.median(bare) * 1000
    return {"fetches": n, "bytes": size, "adapter_ms": adapter_ms, "bare_get_ms": bare_ms,
            "ratio": adapter_ms / bare_ms}


def rows(e: dict) -> list[tuple]:
    from bench.production import PEER_VERSION

    out = []
    for n in CONCURRENCIES:
        got = e[f"c{n}"]
        out.append((f"engine: jobs/s without the fetch, 1 worker process, concurrency {n} "
                    f"({e['jobs']} jobs, median of {e['rounds']} rounds)",
                    f"{got['jobs_per_second']:.0f} jobs/s",
                    f"{got['peer_jobs_per_second']:.0f} jobs/s procrastinate {PEER_VERSION} "
                    "no-op", f"{got['ratio']:.2f}x (goal >= 1.0x)"))
    for n in CONCURRENCIES:
        got = e[f"c{n}"]
        out.append((f"memory: peak RSS, engine worker / procrastinate worker (concurrency {n})",
                    f"{got['worker_peak_rss_mib']:.0f} MiB",
                    f"{got['peer_peak_rss_mib']:.0f} MiB", ""))
    f = e["fetch"]
    out.append((f"engine: the original's fetch through the store adapter "
                f"({f['bytes'] // 1024} KiB, median of {f['fetches']})",
                f"{f['adapter_ms']:.2f} ms", f"{f['bare_get_ms']:.2f} ms bare HTTP GET",
                f"{f['ratio']:.2f}x (goal <= 1.5x)"))
    return out
