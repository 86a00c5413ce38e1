"""A throwaway PostgreSQL server for the tests, and the store databases made on it or in a SQLite file.

:class:`PostgresServer` runs Debian's server binaries: ``initdb`` into a
temporary folder, ``pg_ctl start`` on a free loopback port with its socket in
that folder and ``fsync`` off (a test server need not survive a power cut). The
superuser ``postgres`` connects through the socket without a password; tests
connect over TCP as :data:`USER` with :data:`PASSWORD` (scram-sha-256), as a
till would. PostgreSQL refuses to run as root: as root, the server runs as the
``postgres`` system user (``runuser``) and the folder belongs to it.

:meth:`PostgresServer.stop` and :meth:`PostgresServer.start` stop the server
(``mode="immediate"`` is a crash) and start it again on the same folder and
port, for tests of a store database that goes away and comes back.

Without the binaries the tests that need the server skip, saying how to install
them (:data:`SKIP_REASON`).
"""

from __future__ import annotations

import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from glob import glob
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

    from pos_terminal.store.database import StoreDatabase

SKIP_REASON = (
    "PostgreSQL's server binaries (initdb, pg_ctl) are not installed:"
    " run `make postgres-deps` (apt-get install postgresql) for the store database tests on PostgreSQL"
)
USER = "pos_test"
PASSWORD = "pos-test-password"
SUPERUSER = "postgres"
START_TIMEOUT_S = 60


def find_binaries() -> Path | None:
    """The folder of Debian's newest PostgreSQL server (``/usr/lib/postgresql/N/bin``), or of ``pg_ctl`` on PATH."""

    def major(path: str) -> int:
        found = re.search(r"/postgresql/(\d+)/", path)
        return int(found.group(1)) if found else 0

    installed = sorted(glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=major)
    if installed:
        return Path(installed[-1]).parent
    on_path = shutil.which("pg_ctl")
    if on_path and (Path(on_path).resolve().parent / "initdb").exists():
        return Path(on_path).resolve().parent
    return None


def missing() -> str | None:
    """Why the tests cannot have a server here (the binaries, or the system user to run them as root), or None."""
    if find_binaries() is None:
        return SKIP_REASON
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SUPERUSER)
        except KeyError:
            return f"{SKIP_REASON}: as root the server runs as the {SUPERUSER} system user, and there is none"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """A PostgreSQL server of its own in a temporary folder; :meth:`destroy` stops it and removes the folder."""

    host = "127.0.0.1"
    user = USER
    password = PASSWORD

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.port = free_port()
        self.base = Path(tempfile.mkdtemp(prefix="pos-postgres-"))
        self.data = self.base / "data"
        self.sockets = self.base / "sockets"
        self.logfile = self.base / "server.log"
        self._names = itertools.count(1)
        # Root may not run the server: the postgres system user does, and owns the folder.
        self._as: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam(SUPERUSER)
            self._as = ["runuser", "-u", SUPERUSER, "--"]
            os.chown(self.base, owner.pw_uid, owner.pw_gid)
        self._run("mkdir", "-p", str(self.sockets))

    @classmethod
    def create(cls, binaries: Path) -> PostgresServer:
        """initdb, start, and a role with a password for the tests."""
        server = cls(binaries)
        try:
            server._run(
                str(binaries / "initdb"),
                "-D",
                str(server.data),
                "-U",
                SUPERUSER,
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--no-locale",
                "--encoding=UTF8",
                "--no-sync",
            )
            server.start()
            with server.admin() as admin:
                from psycopg import sql

                # the store's owner, as a shop sets it up: it runs store init and makes the tills' own users
                admin.execute(
                    sql.SQL("CREATE ROLE {} LOGIN CREATEROLE PASSWORD {}").format(
                        sql.Identifier(USER), sql.Literal(PASSWORD)
                    )
                )
        except BaseException:
            server.destroy()
            raise
        return server

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self._as, *command], capture_output=True, text=True, timeout=START_TIMEOUT_S)
        if done.returncode != 0:
            log = self.logfile.read_text(errors="replace")[-2000:] if self.logfile.exists() else ""
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}\n{log}")

    def start(self) -> None:
        """Start (again) on the same folder and port; returns once the server accepts connections."""
        # fsync off: the operating system still gets every write, so a crash of the server (stop("immediate"))
        # loses no committed transaction; only a crash of the machine would. Commits stay synchronous for that.
        options = f"-c listen_addresses={self.host} -p {self.port} -k {self.sockets} -c fsync=off"
        self._run(
            str(self.binaries / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.logfile),
            "-o",
            options,
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` ends sessions cleanly, ``immediate`` is a crash (recovery runs at start)."""
        self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        done = subprocess.run(
            [*self._as, str(self.binaries / "pg_ctl"), "-D", str(self.data), "status"], capture_output=True
        )
        return done.returncode == 0

    def destroy(self) -> None:
        if self.data.exists() and self.running():
            self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)

    def admin(self, dbname: str = "postgres") -> psycopg.Connection[Any]:
        """The superuser, through the socket, in autocommit."""
        import psycopg

        return psycopg.connect(
            host=str(self.sockets), port=self.port, user=SUPERUSER, dbname=dbname, autocommit=True, connect_timeout=10
        )

    def create_database(self) -> str:
        """A new empty database owned by :data:`USER`; its name."""
        from psycopg import sql

        name = f"test_{next(self._names)}"
        with self.admin() as admin:
            admin.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(name), sql.Identifier(USER)))
        return name

    def drop_database(self, name: str) -> None:
        """Drop ``name``, ending any session still on it."""
        from psycopg import sql

        with self.admin() as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def url(self, database: str, *, query: str = "", user: str = USER) -> str:
        """The address a till would be given (without the password, which goes apart); as ``user``, a till's own."""
        return f"postgresql://{user}@{self.host}:{self.port}/{database}" + (f"?{query}" if query else "")


@dataclass
class StoreTarget:
    """A store database for one test, on SQLite or PostgreSQL; :meth:`open` it once per till."""

    backend: str  # "sqlite" or "postgresql"
    url: str
    password: str | None = None
    server: PostgresServer | None = None  # on PostgreSQL
    opened: list[StoreDatabase] = field(default_factory=list)

    def open(self, **options: Any) -> StoreDatabase:
        """A :class:`StoreDatabase` on this target, closed when the test ends."""
        from pos_terminal.store.database import StoreDatabase

        options.setdefault("password", self.password)
        database = StoreDatabase(self.url, **options)
        self.opened.append(database)
        return database

    def close_all(self) -> None:
        for database in self.opened:
            database.close()


BACKENDS: Sequence[str] = ("sqlite", "postgresql")
