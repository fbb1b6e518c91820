"""A cluster job carries only the variables its case refers to: a ``vars:`` entry of the suite
the case never uses (``AUTH_HEADER: "Bearer ${API_TOKEN}"``) is no reason to send the secret it
names to the worker (it sat in the Celery message body in Redis while the case ran); one the
case does use brings the variables it names, transitively."""

from __future__ import annotations

from pathlib import Path

from farm.cluster.jobs import payload
from farm.schedule import Job
from farm.suite.loader import load_suites

SUITE = """secrets: [SITE_USER]
vars:
  AUTH_HEADER: "Bearer ${API_TOKEN}"
  COMBO: "${LOGIN_PASSWORD}-${DB_CREDENTIALS}"
  INNER: "${DEEP_TOKEN}"
  OUTER: "x ${INNER}"
"""
CASE = """name: {name}
web:
  url: http://127.0.0.1:9/
tasks:
  - name: t
    flow:
      - aiInput: Password
        value: ${{LOGIN_PASSWORD}}
{more}"""
ENV = {"LOGIN_PASSWORD": "pw-aaaaaaaaaaaa", "DB_CREDENTIALS": "db-bbbbbbbbbbbb",
       "API_TOKEN": "tok-cccccccccccc", "DEEP_TOKEN": "deep-dddddddddd",
       "SITE_USER": "admin-eeeeeeee", "OTHER_TOKEN": "other-ffffffff"}


def _sent(tmp_path: Path, more: str = "") -> dict[str, str]:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "farm.yaml").write_text(SUITE)
    (suite / "c.yaml").write_text(CASE.format(name="c", more=more))
    (case,) = [c for s in load_suites([suite], env=ENV, dotenv=None) for c in s.cases]
    job = Job(case_id=case.id, platform=case.platform, expected_seconds=1.0)
    return payload("run1", job, case, dict(ENV), {})["env"]


def test_a_case_that_uses_no_suite_var_gets_none_of_the_secrets_they_name(tmp_path: Path):
    env = _sent(tmp_path)
    assert sorted(env) == ["LOGIN_PASSWORD", "SITE_USER"], env     # its ${NAME}, its secrets:
    assert "tok-cccccccccccc" not in str(env) and "db-bbbbbbbbbbbb" not in str(env)


def test_a_var_the_case_uses_brings_what_it_names_transitively(tmp_path: Path):
    env = _sent(tmp_path, "      - assertText: ${COMBO} ${OUTER}\n")
    assert sorted(env) == ["DB_CREDENTIALS", "DEEP_TOKEN", "LOGIN_PASSWORD", "SITE_USER"], env
    assert "API_TOKEN" not in env and "OTHER_TOKEN" not in env
