"""Invariants of infra/compose.yaml that a broken edit would silently violate.

Docker Compose itself is not available to the test suite, so this parses the file with PyYAML
(which also resolves the `<<` merge keys the file uses) and checks the structure the deployment
relies on: which services exist, how they are wired, what they expose and how they are configured.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "infra" / "compose.yaml"

APP_SERVICES = ("migrate", "create-bucket", "api", "worker")
LONG_RUNNING_APP = ("api", "worker")
REQUIRED_ENV = (
    "LEDGERLINE_DATABASE_URL",
    "LEDGERLINE_STORAGE_URL",
    "AWS_ENDPOINT_URL_S3",
    "LEDGERLINE_MODEL_PRICE_PER_CALL",
    "LEDGERLINE_CACHE_MODE",
    "LEDGERLINE_MAX_UPLOAD_BYTES",
    "LEDGERLINE_LEASE_SECONDS",
)

_DEFAULT = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}")


def _with_defaults(value: object) -> str:
    """Interpolate `${VAR:-default}` the way compose would with an empty environment."""
    return _DEFAULT.sub(lambda m: m.group(2) or "", str(value))


def _command(service: dict) -> list[str]:
    command = service.get("command", [])
    if isinstance(command, str):
        command = command.split()
    return [_with_defaults(part) for part in command]


def _env(service: dict) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {key: _with_defaults(value) for key, value in env.items()}


@pytest.fixture(scope="module")
def compose() -> dict:
    with COMPOSE.open(encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    assert isinstance(document, dict)
    return document


@pytest.fixture(scope="module")
def services(compose: dict) -> dict:
    return compose["services"]


def test_expected_services_present(services: dict) -> None:
    assert {"postgres", "s3", *APP_SERVICES} <= set(services)


def test_postgres_is_16_and_private(services: dict) -> None:
    postgres = services["postgres"]
    assert re.fullmatch(r"postgres:16(\b.*)?", postgres["image"]), postgres["image"]
    assert "ports" not in postgres, "the database must not be published on the host"
    assert any("/var/lib/postgresql/data" in str(v) for v in postgres.get("volumes", []))


def test_s3_is_seaweedfs_with_gateway_and_private(services: dict) -> None:
    s3 = services["s3"]
    assert s3["image"].startswith("chrislusf/seaweedfs:")
    assert not s3["image"].endswith(":latest"), "pin the object store version"
    command = _command(s3)
    assert command[0] == "server" and "-s3" in command
    assert "ports" not in s3, "the object store must not be published on the host"
    env = _env(s3)
    assert env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY")


def test_only_the_api_publishes_a_port_on_loopback(services: dict) -> None:
    published = {name for name, svc in services.items() if svc.get("ports")}
    assert published == {"api"}
    for port in services["api"]["ports"]:
        assert _with_defaults(port).startswith("127.0.0.1:"), port
        assert _with_defaults(port).endswith(":8000")


def test_app_services_share_one_image(services: dict) -> None:
    images = {services[name]["image"] for name in APP_SERVICES}
    assert len(images) == 1
    for name in APP_SERVICES:
        build = services[name].get("build")
        assert build and build["context"] == ".." and build.get("dockerfile", "Dockerfile") == "Dockerfile"
        assert (COMPOSE.parent / build["context"] / "Dockerfile").is_file()


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_configuration(services: dict, name: str) -> None:
    env = _env(services[name])
    missing = [key for key in REQUIRED_ENV if not env.get(key)]
    assert not missing, f"{name} lacks {missing}"
    assert env["LEDGERLINE_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "@postgres:5432/" in env["LEDGERLINE_DATABASE_URL"]
    assert re.fullmatch(r"s3://[a-z0-9][a-z0-9.-]{2,62}(/.+)?", env["LEDGERLINE_STORAGE_URL"])
    assert env["AWS_ENDPOINT_URL_S3"] == "http://s3:8333"
    assert env["LEDGERLINE_CACHE_MODE"] in {"on", "off", "shadow"}
    assert float(env["LEDGERLINE_MODEL_PRICE_PER_CALL"]) >= 0
    assert int(env["LEDGERLINE_MAX_UPLOAD_BYTES"]) > 0
    assert int(env["LEDGERLINE_LEASE_SECONDS"]) > 0
    assert env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY")


def test_app_and_store_credentials_agree(services: dict) -> None:
    store = _env(services["s3"])
    for name in APP_SERVICES:
        env = _env(services[name])
        assert env["AWS_ACCESS_KEY_ID"] == store["AWS_ACCESS_KEY_ID"]
        assert env["AWS_SECRET_ACCESS_KEY"] == store["AWS_SECRET_ACCESS_KEY"]
    password = _env(services["postgres"])["POSTGRES_PASSWORD"]
    user = _env(services["postgres"])["POSTGRES_USER"]
    db = _env(services["postgres"])["POSTGRES_DB"]
    url = _env(services["api"])["LEDGERLINE_DATABASE_URL"]
    assert url == f"postgresql+psycopg://{user}:{password}@postgres:5432/{db}"


def test_migrate_is_a_one_shot_db_upgrade(services: dict) -> None:
    migrate = services["migrate"]
    assert _command(migrate) == ["ledgerline", "db", "upgrade"]
    assert migrate.get("restart", "no") == "no"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_create_bucket_is_a_valid_one_shot(services: dict) -> None:
    bucket = services["create-bucket"]
    assert bucket.get("restart", "no") == "no"
    assert bucket["depends_on"]["s3"]["condition"] == "service_healthy"
    command = _command(bucket)
    assert command[:2] == ["python", "-c"]
    compile(command[2], "<create-bucket>", "exec")
    assert "create_bucket" in command[2] and "BucketAlreadyOwnedByYou" in command[2]


def test_api_serves_without_embedded_worker(services: dict) -> None:
    command = _command(services["api"])
    assert command[:2] == ["ledgerline", "serve"]
    assert "--no-embedded-worker" in command
    assert "--host=0.0.0.0" in command and "--port=8000" in command


def test_workers_are_replicated_and_graceful(services: dict) -> None:
    worker = services["worker"]
    assert _command(worker)[:2] == ["ledgerline", "worker"]
    assert worker["deploy"]["replicas"] >= 2
    # tini is the image's ENTRYPOINT (test_dockerfile.py); a second init would only nest.
    assert "init" not in worker
    assert "ports" not in worker
    assert "container_name" not in worker, "a fixed container name prevents scaling"


@pytest.mark.parametrize("name", LONG_RUNNING_APP)
def test_app_waits_for_migration_bucket_and_backends(services: dict, name: str) -> None:
    depends = services[name]["depends_on"]
    assert depends["migrate"]["condition"] == "service_completed_successfully"
    assert depends["create-bucket"]["condition"] == "service_completed_successfully"
    assert depends["postgres"]["condition"] == "service_healthy"
    assert depends["s3"]["condition"] == "service_healthy"


def test_healthchecks(services: dict) -> None:
    for name in ("postgres", "s3", "api"):
        check = services[name].get("healthcheck")
        assert check and not check.get("disable"), f"{name} needs a healthcheck"
        assert check["test"][0] in {"CMD", "CMD-SHELL"}
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    assert "/healthz" in " ".join(services["s3"]["healthcheck"]["test"])
    assert services["api"]["healthcheck"]["test"] == [
        "CMD", "python", "-m", "ledgerline.http.healthcheck"]
    # Processes without an HTTP listener must not inherit the image's /healthz probe.
    for name in ("worker", "migrate", "create-bucket"):
        assert services[name]["healthcheck"].get("disable") is True, name


def test_dependencies_exist_and_are_acyclic(services: dict) -> None:
    graph = {name: set(svc.get("depends_on", {})) for name, svc in services.items()}
    for name, deps in graph.items():
        assert deps <= set(services), f"{name} depends on unknown {deps - set(services)}"
        for dep in deps:
            condition = services[name]["depends_on"][dep]["condition"]
            if condition == "service_healthy":
                assert services[dep].get("healthcheck", {}).get("test"), f"{dep} has no healthcheck"
    done: set[str] = set()

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, f"dependency cycle {path + (node,)}"
        if node not in done:
            for dep in graph[node]:
                visit(dep, path + (node,))
            done.add(node)

    for name in graph:
        visit(name, ())


def test_persistent_volumes_declared(compose: dict, services: dict) -> None:
    declared = set(compose.get("volumes") or {})
    for name in ("postgres", "s3"):
        for volume in services[name]["volumes"]:
            source = str(volume).split(":", 1)[0]
            assert source in declared, f"{name} uses undeclared volume {source}"
