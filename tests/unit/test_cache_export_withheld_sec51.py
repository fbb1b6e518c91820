"""`farm cache export` of a case whose plan a run did not cache because it would hold a
secret value (farm.log: "not cached: the plan entry … would hold a secret value") said "no
cached plan … run the case once with a model (cache read-write) first": the advice that had
just been followed. The run now notes, without the value, that it withheld the plan, and the
export says why it is missing."""

from __future__ import annotations

import pytest
from farm.agent.images import images_key
from farm.cache.case import CaseCache
from farm.cache.export import export_case
from farm.cache.keys import Namespace, app_version, context_key
from farm.cache.store import MemoryStore
from farm.errors import UserError
from farm.suite.loader import load_case_file
from farm.suite.vars import Variables

SECRET = "sec51-Hunter2-value"
CASE = """name: login
web:
  url: http://127.0.0.1:1/
tasks:
  - name: t
    flow:
      - ai: sign in
"""


def _export_error(tmp_path, plan: dict) -> str:
    path = tmp_path / "login.yaml"
    path.write_text(CASE)
    case = load_case_file(path, env={})
    store = MemoryStore()
    ns = Namespace(case.id, "web", app_version(case.cache_key, case.agent))
    cache = CaseCache(store, ns, "read-write",
                      mask=Variables({"LOGIN_PASSWORD": SECRET}, ["LOGIN_PASSWORD"]).mask)
    key = ns.key("plan", "sign in" + images_key(None) + context_key(""), 0)
    assert cache.save(key, "plan", "sign in", plan) is False
    with pytest.raises(UserError) as err:
        export_case(case, store)
    assert all(SECRET not in str(v) for _, v in store.items())
    return str(err.value)


def test_a_plan_withheld_for_its_secret_is_said_so(tmp_path):
    said = _export_error(tmp_path, {"actions": [{"type": "Input", "params": {"value": SECRET}}]})
    assert ": no cached plan for `ai: sign in` in the cache store memory: a run planned it, " \
           "but its plan would hold a secret value, so it was not cached" in said, said
    assert "run the case once with a model" not in said and SECRET not in said, said


def test_a_plan_never_planned_keeps_its_advice(tmp_path):
    path = tmp_path / "login.yaml"
    path.write_text(CASE)
    with pytest.raises(UserError, match="run the case once with a model"):
        export_case(load_case_file(path, env={}), MemoryStore())
