"""A cluster job's case carries only the ``vars:`` its case refers to: a `.env` value that a
suite var names (``AUTH_HEADER: "Bearer ${API_TOKEN}"``, API_TOKEN in .env) is copied into
the case's vars at load, and the case went to the worker whole — the token in the Celery
message of a case that never uses AUTH_HEADER."""

from __future__ import annotations

import json
from pathlib import Path

from farm.cluster.jobs import payload
from farm.schedule import Job
from farm.suite.loader import load_suites

SUITE = 'vars:\n  AUTH_HEADER: "Bearer ${API_TOKEN}"\n  GREETING: "hello ${WHO}"\n'
CASE = """name: c
web:
  url: http://127.0.0.1:9/
tasks:
  - name: t
    flow:
      - assertText: ${GREETING}
"""


def test_a_dotenv_value_only_an_unused_var_names_is_not_sent_s51(tmp_path: Path) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "farm.yaml").write_text(SUITE)
    (suite / "c.yaml").write_text(CASE)
    dotenv = tmp_path / ".env"
    dotenv.write_text("API_TOKEN=tok-cccccccccccccccc\nWHO=world\n")
    (case,) = [c for s in load_suites([suite], env={}, dotenv=dotenv) for c in s.cases]
    job = Job(case_id=case.id, platform=case.platform, expected_seconds=1.0)
    sent = payload("run1", job, case, {}, {})
    assert "tok-cccccccccccccccc" not in json.dumps(sent)
    assert sent["case"]["vars"].get("GREETING") == "hello ${WHO}"     # what it uses is sent
