"""The suite's real servers start, serve, and come back after an outage."""

import base64
import hashlib
import uuid

import pytest

from tests.servers import GRPC_OFFSET, free_port, port_is_free, postgres_server, seaweed_s3_server

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def pg():
    with postgres_server() as server:
        yield server


@pytest.fixture(scope="module")
def s3():
    with seaweed_s3_server() as server:
        yield server


@pytest.fixture
def s3_client(s3):
    client = s3.client()
    yield client
    client.close()


def test_free_port_has_a_free_grpc_twin():
    port = free_port()
    assert port + GRPC_OFFSET < 32768
    assert port_is_free(port) and port_is_free(port + GRPC_OFFSET)


def test_postgres_answers_sql_over_tcp_and_socket(pg):
    import sqlalchemy as sa

    assert pg.execute("select 1 + 1") == [(2,)]
    assert pg.execute("show max_connections") == [("300",)]
    assert pg.execute("show fsync") == [("off",)]
    for url in (pg.url, pg.socket_url):
        engine = sa.create_engine(url)
        try:
            with engine.connect() as conn:
                assert conn.execute(sa.text("select current_user")).scalar() == "postgres"
        finally:
            engine.dispose()


def test_postgres_clones_a_template_database(pg):
    pg.create_database("tmpl_servers")
    pg.execute("create table t (id int primary key)", database="tmpl_servers")
    pg.execute("insert into t values (7)", database="tmpl_servers")
    url = pg.create_database("clone_servers", template="tmpl_servers")
    try:
        assert url.endswith("/clone_servers")
        assert pg.execute("select id from t", database="clone_servers") == [(7,)]
    finally:
        pg.drop_database("clone_servers")
        pg.drop_database("tmpl_servers")
    names = {row[0] for row in pg.execute("select datname from pg_database")}
    assert not names & {"clone_servers", "tmpl_servers"}


def test_drop_database_closes_open_connections(pg):
    pg.create_database("busy_servers")
    conn = pg.connect("busy_servers")
    try:
        pg.drop_database("busy_servers")
    finally:
        conn.close()
    assert pg.execute("select count(*) from pg_database where datname = 'busy_servers'") == [(0,)]


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_postgres_keeps_data_across_stop_and_start(pg, mode):
    import psycopg

    table = f"survivor_{mode}"
    pg.execute(f"create table {table} (v text)")
    pg.execute(f"insert into {table} values ('kept')")
    port = pg.port
    conn = pg.connect()
    pg.stop(mode)
    assert not pg.is_running()
    with pytest.raises(psycopg.OperationalError):
        conn.execute("select 1")
    conn.close()
    pg.start()
    assert pg.port == port
    assert pg.execute(f"select v from {table}") == [("kept",)]


def test_s3_put_and_get_round_trip_with_checksums(s3, s3_client):
    bucket = f"servers-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(bucket)
    body = b"%PDF-1.7 invoice bytes\n" * 1000
    sha256 = base64.b64encode(hashlib.sha256(body).digest()).decode()
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()

    s3_client.put_object(Bucket=bucket, Key="plain", Body=body)  # boto3's default CRC32
    s3_client.put_object(Bucket=bucket, Key="md5", Body=body, ContentMD5=md5)
    put = s3_client.put_object(Bucket=bucket, Key="sha", Body=body, ChecksumSHA256=sha256)
    assert put["ChecksumSHA256"] == sha256

    for key in ("plain", "md5", "sha"):
        got = s3_client.get_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
        assert got["Body"].read() == body
    head = s3_client.head_object(Bucket=bucket, Key="sha", ChecksumMode="ENABLED")
    assert head["ChecksumSHA256"] == sha256


def test_s3_rejects_a_body_that_does_not_match_its_checksum(s3, s3_client):
    from botocore.exceptions import ClientError

    bucket = f"servers-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(bucket)
    wrong = base64.b64encode(hashlib.sha256(b"other").digest()).decode()
    with pytest.raises(ClientError) as excinfo:
        s3_client.put_object(Bucket=bucket, Key="k", Body=b"body", ChecksumSHA256=wrong)
    assert excinfo.value.response["Error"]["Code"] == "BadDigest"
    with pytest.raises(s3_client.exceptions.NoSuchKey):
        s3_client.get_object(Bucket=bucket, Key="k")


def test_s3_keeps_objects_across_stop_and_start(s3, s3_client):
    from botocore.exceptions import BotoCoreError

    bucket = f"servers-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(bucket)
    objects = {f"obj/{i}": bytes([i]) * (i * 997 + 1) for i in range(20)}
    for key, body in objects.items():
        s3_client.put_object(Bucket=bucket, Key=key, Body=body)
    endpoint = s3.endpoint_url

    s3.stop()
    assert not s3.is_running()
    down = s3.client(connect_timeout=1, retries={"max_attempts": 1})
    with pytest.raises(BotoCoreError):
        down.get_object(Bucket=bucket, Key="obj/1")
    down.close()

    s3.start()
    assert s3.endpoint_url == endpoint
    for key, body in objects.items():
        assert s3_client.get_object(Bucket=bucket, Key=key)["Body"].read() == body
    s3_client.put_object(Bucket=bucket, Key="after", Body=b"new")
    assert s3_client.get_object(Bucket=bucket, Key="after")["Body"].read() == b"new"


def test_servers_clean_up_their_files():
    with postgres_server() as pg:
        pg_dir = pg.base_dir
        assert pg_dir.exists()
    with seaweed_s3_server() as s3:
        s3_dir = s3.base_dir
        assert s3_dir.exists()
    assert not pg_dir.exists()
    assert not s3_dir.exists()
