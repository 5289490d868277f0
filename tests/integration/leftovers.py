"""Scans for what a deletion must not leave: every column of every table, and every object of
the store (every version of every object in a versioned bucket)."""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import metadata
from ledgerline.adapters.storage import LocalObjectStore, S3ObjectStore


def in_tables(engine, needles: list[str]) -> list[tuple[str, str, str]]:
    """(table, column, needle) for every value that contains a needle."""
    found = []
    with transaction(engine, write=False) as conn:
        for table in metadata.sorted_tables:
            for row in conn.execute(select(table)).mappings():
                for column, value in row.items():
                    text = "" if value is None else str(value)
                    found += [(table.name, column, n) for n in needles if n in text]
    return found


def stored_objects(store) -> list[tuple[str, bytes]]:
    """(key and version, bytes) of everything in the store."""
    if isinstance(store, LocalObjectStore):
        return [(str(p.relative_to(store.root)), p.read_bytes())
                for p in sorted(Path(store.root).rglob("*")) if p.is_file()]
    assert isinstance(store, S3ObjectStore)
    found = []
    pages = store.client.get_paginator("list_object_versions").paginate(
        Bucket=store.bucket, Prefix=store.prefix + "/")
    for page in pages:
        for version in page.get("Versions", []):
            body = store.client.get_object(Bucket=store.bucket, Key=version["Key"],
                                           VersionId=version["VersionId"])["Body"].read()
            found.append((f"{version['Key']}@{version['VersionId']}", body))
        for marker in page.get("DeleteMarkers", []):
            found.append((f"{marker['Key']}@{marker['VersionId']} (delete marker)", b""))
    return found


def in_objects(store, needles: list[bytes]) -> list[tuple[str, bytes]]:
    return [(key, n) for key, body in stored_objects(store) for n in needles if n in body]


VERSIONED_BUCKET = "ledgerline-versioned"


def versioned_bucket(s3_server) -> str:
    """A bucket with versioning enabled (created once per server)."""
    client = s3_server.client()
    try:
        client.create_bucket(Bucket=VERSIONED_BUCKET)
    except client.exceptions.BucketAlreadyOwnedByYou:
        pass
    client.put_bucket_versioning(Bucket=VERSIONED_BUCKET,
                                 VersioningConfiguration={"Status": "Enabled"})
    assert client.get_bucket_versioning(Bucket=VERSIONED_BUCKET)["Status"] == "Enabled"
    return VERSIONED_BUCKET
