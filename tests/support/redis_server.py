"""A throwaway redis-server on a free port: the machine's shared Redis is never touched.

    server = RedisServer(password="pw").start()
    url = server.url            # redis://:pw@127.0.0.1:<port>/0
    fresh = server.new_db()     # redis://:pw@127.0.0.1:<port>/7: an empty keyspace of its own
    server.stop()
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

DATABASES = 256     # one server, many isolated keyspaces (tests share it, each with its own DB)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, port: int | None = None, password: str | None = None) -> None:
        self.port = port or free_port()
        self.password = password
        self.proc: subprocess.Popen | None = None
        self._next_db = 1

    def url_for(self, db: int) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/{db}"

    @property
    def url(self) -> str:
        return self.url_for(0)

    def new_db(self) -> str:
        """The URL of a database no one has used yet on this server."""
        if self._next_db >= DATABASES:
            raise RuntimeError(f"all {DATABASES} databases of the test redis-server are taken")
        db, self._next_db = self._next_db, self._next_db + 1
        return self.url_for(db)

    def start(self) -> "RedisServer":
        """Start (or restart, same port and password) and return once it answers PING."""
        exe = shutil.which("redis-server")
        if exe is None:
            import pytest
            pytest.skip("redis-server not installed")
        auth = ["--requirepass", self.password] if self.password else []
        self.proc = subprocess.Popen([exe, "--port", str(self.port), "--save", "",
                                      "--appendonly", "no", "--bind", "127.0.0.1",
                                      "--databases", str(DATABASES), *auth],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis
        client = redis.Redis(port=self.port, password=self.password, socket_connect_timeout=1)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
            try:
                if client.ping():
                    return self
            except redis.ConnectionError:
                time.sleep(0.05)        # polling for the port to answer, not a fixed wait
        raise RuntimeError("redis-server did not answer PING within 10 s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
