"""What a cluster job's task message holds while its case runs (in Redis, readable by anyone who
can read the broker): only the variables the case refers to. Before, a case that typed only
${LOGIN_PASSWORD} carried API_TOKEN and DB_CREDENTIALS too, because the suite's ``vars:``
(``AUTH_HEADER: "Bearer ${API_TOKEN}"``, never used by the case) was scanned with the case.
Real redis-server (a database of its own, >= 7), a real `farm worker`, real Chromium."""

from __future__ import annotations

import base64
import json
from typing import Any, Iterator

import pytest

from tests.support.farm_cli import results
from tests.support.gate import Gate
from tests.support.suites import demo_copy, write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

ENV = {"FARM_CLUSTER_PREFIX": "sec51", "LOGIN_PASSWORD": "sec51-login-value-1234",
       "API_TOKEN": "sec51-api-token-value-5678", "DB_CREDENTIALS": "sec51-db-creds-value-9012",
       "SITE_USER": "sec51-site-user-value"}
SUITE = """secrets: [SITE_USER]
apps:
  shop:
    serve: app
    env: FARM_DEMO_URL
vars:
  AUTH_HEADER: "Bearer ${API_TOKEN}"
  COMBO: "${LOGIN_PASSWORD}-${DB_CREDENTIALS}"
"""


@pytest.fixture
def high_db(redis_server: Any) -> str:
    """A database of the test redis-server no other test uses, numbered 7 or more."""
    url = redis_server.new_db()
    while int(url.rsplit("/", 1)[1]) < 7:
        url = redis_server.new_db()
    return url


def _values(url: str) -> list[str]:
    """Every string the database holds (strings, lists, hashes, sets)."""
    import redis
    r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
    try:
        out: list[str] = []
        for key in r.scan_iter():
            kind = r.type(key)
            out += ([r.get(key)] if kind == "string" else r.lrange(key, 0, -1) if kind == "list"
                    else list(r.hgetall(key).values()) if kind == "hash"
                    else list(r.smembers(key)) if kind == "set" else [])
        return [v for v in out if v]
    finally:
        r.close()


def _payloads(data: Any) -> Iterator[dict[str, Any]]:
    """The job payloads in ``data``: a Celery message's JSON, its base64 body decoded."""
    if isinstance(data, str) and data[:1] in "[{":
        try:
            yield from _payloads(json.loads(data))
        except ValueError:
            return                      # a text that only starts like JSON
    elif isinstance(data, list):
        for item in data:
            yield from _payloads(item)
    elif isinstance(data, dict):
        if "env" in data and "case" in data and "run_id" in data:
            yield data
        elif isinstance(data.get("body"), str):
            yield from _payloads(base64.b64decode(data["body"]).decode())
        else:
            for item in data.values():
                yield from _payloads(item)


def test_a_waiting_task_holds_only_the_variables_its_case_refers_to(
        tmp_path, chromium, high_db, workers, farm):
    suite = demo_copy(tmp_path / "s51")            # its app, served: the gate answers http
    (suite / "farm.yaml").write_text(SUITE)
    with Gate() as gate:
        write_case(suite, "login", ["javascript: \"'${LOGIN_PASSWORD}'.length\"", gate.step()],
                   url="${FARM_DEMO_URL}/index.html")
        workers("browser:1", broker=high_db, FARM_CLUSTER_PREFIX="sec51")
        proc = farm.start("run", suite, "--broker", high_db, "--no-progress",
                          "--report-dir", tmp_path / "run", **ENV)
        gate.wait_for_arrivals(1)                       # the case runs: its task is taken
        held = _values(high_db)
        gate.open()
        out = proc.finish()
    assert proc.returncode == 0, out
    (case,) = results(tmp_path / "run")["cases"]
    assert case["status"] == "passed", case
    sent = [p["env"] for value in held for p in _payloads(value)]
    wanted = ["FARM_DEMO_URL", "LOGIN_PASSWORD", "SITE_USER"]   # its ${NAME}s, its secrets:
    assert sent and all(sorted(env) == wanted for env in sent), sent
    raw = "\n".join(held)
    for name in ("API_TOKEN", "DB_CREDENTIALS"):
        assert ENV[name] not in raw and ENV[name] not in json.dumps(sent), name
