"""A shared Redis cache store that hangs (accepts the connection, never answers) during a
nightly run: the first case waits out the socket timeout and runs uncached; the cases after
it run uncached at once, without each waiting out the timeout again (a 500-case night lost
10 s a case). The run says so once on stderr; every step that wanted the cache records
``unavailable``."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from farm.cache import redis_store
from farm.cache.redis_store import RedisStore, StoreDown


class HungRedis:
    """A TCP listener that accepts every connection and never answers; counts them."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.sock.getsockname()[1]}/0"
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.accepted:
            conn.close()


@pytest.fixture
def hung(monkeypatch):
    monkeypatch.setattr(redis_store, "SOCKET_TIMEOUT", 0.3)   # the test need not wait 10 s
    monkeypatch.setattr(redis_store, "PROBE_TIMEOUT", 0.3)
    server = HungRedis()
    yield server
    server.close()


def _case(tmp_path: Path, n: int):
    from farm.suite.model import Case, Step, Task, WebTarget
    return Case(id=f"s/login{n}", name="c", file=tmp_path / f"c{n}.yaml", suite_root=tmp_path,
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="aiTap", target="Sign in")])])


def test_cases_after_the_first_do_not_wait_for_a_hung_redis(tmp_path, hung, capsys):
    from farm.config import Settings
    from farm.devices.fake import FakeDevice
    from farm.results import ArtifactStore
    from farm.runner import Services, run_case
    from farm.schedule import Job
    from tests.unit.test_cache_units import SHOP
    services = Services(Settings(state_dir=tmp_path / "state", cache_url=hung.url),
                        ArtifactStore(tmp_path / "run"), "r1", {})
    asked = []
    for n in range(3):          # three cases of one night, one device
        case = _case(tmp_path, n)
        result = run_case(Job(case.id, "web", 1), case, FakeDevice(
            screens=SHOP, transitions={"Sign in": "home"}), services)
        assert result.status == "passed", result.error
        assert result.steps[0].cache.mode == "unavailable"
        asked.append(len(hung.accepted))
    assert asked[0] >= 1 and asked[1:] == [asked[0], asked[0]], asked
    err = capsys.readouterr().err
    assert err.count("farm: warning: cache store redis://127.0.0.1:") == 1, err
    assert "unavailable (TimeoutError" in err, err


def test_a_store_that_was_down_is_probed_again_later(hung, monkeypatch):
    """After RETRY_FIRST seconds one call asks Redis again (it may be back)."""
    clock = [1000.0]
    monkeypatch.setattr(redis_store.time, "monotonic", lambda: clock[0])
    store = RedisStore(hung.url)
    with pytest.raises(Exception) as first:
        store.get("k")
    assert not isinstance(first.value, StoreDown)
    tried = len(hung.accepted)
    with pytest.raises(StoreDown, match=r"Timeout.*not asked again for 5 s"):
        store.get("k")
    assert len(hung.accepted) == tried
    clock[0] += redis_store.RETRY_FIRST
    with pytest.raises(Exception) as probe:
        store.put("k", {"a": 1})
    assert not isinstance(probe.value, StoreDown) and len(hung.accepted) > tried
    store.close()
