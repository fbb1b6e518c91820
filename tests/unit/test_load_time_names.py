"""``${NAME}`` in a name (the case's, a task's, a step's ``name:``; agent.testId, groupName):
Midscene substitutes variables across the whole file, so ``name: Login as ${USER_NAME}`` is
*Login as alice* in the report, results.json and the case's ``data`` keys. A name is shown
everywhere, so a secret there is refused at load (never masked), as is a served app's URL,
known only when the run starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.suite.loader import load_suites
from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

CASE = """\
name: Login as ${USER_NAME}
web:
  url: http://app.invalid/
tasks:
  - name: task for ${USER_NAME}
    flow:
      - javascript: return 1
        name: js_${USER_NAME}
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory where ``farm run`` uses the in-memory ``fake`` device."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "USER_NAME", "FARM_SECRETS_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_names_show_their_variables_values_in_the_results(here, monkeypatch, capsys):
    from tests.support.devices import StagedFakeDevice
    monkeypatch.setattr(StagedFakeDevice, "run_script", lambda self, code, timeout_s: 1)
    monkeypatch.setenv("USER_NAME", "alice")
    write(here / "s" / "login.yaml", CASE)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                              "--no-progress", "--report-dir", "r")
    assert code == 0, out + err
    [case] = json.loads((here / "r" / "results.json").read_text())["cases"]
    assert case["name"] == "Login as alice"
    assert [step["task"] for step in case["steps"]] == ["task for alice"]
    assert case["data"] == {"js_alice": 1}
    code, out, _ = run_main(monkeypatch, capsys, "run", "s", "-k", "alice", "--collect-only")
    assert code == 0 and "s/login  [web]  Login as alice" in out     # -k reads the name too


def test_names_take_defaults_vars_and_escapes(tmp_path):
    case_file = write(tmp_path / "s" / "c.yaml", """\
name: ${WHO:-guest} on ${SHOP} costs $${PRICE}
vars:
  SHOP: the shop
agent:
  testId: ${SHOP_ID}
  groupDescription: for ${SHOP}
tasks:
  - name: ${EMPTY:-empty} task
    flow:
      - assertText: Welcome
        name: seen_${SHOP_ID}
web:
  url: https://example.com
""")
    [suite] = load_suites([case_file], env={"SHOP_ID": "eu-1", "EMPTY": ""}, dotenv=None)
    [case] = suite.cases
    assert case.name == "guest on the shop costs ${PRICE}"
    assert (case.id, case.description) == ("s/eu-1", "for the shop")
    assert case.tasks[0].name == "empty task"
    assert case.tasks[0].steps[0].options["name"] == "seen_eu-1"


SECRET_SUITE = """\
secrets: [DEMO_PASSWORD]
vars:
  DEMO_PASSWORD: farm-demo-pass
apps:
  shop:
    serve: app
    env: SHOP_URL
"""


@pytest.mark.parametrize("name, env, why", [
    ("${DEMO_PASSWORD}", {}, "${DEMO_PASSWORD} is a secret (secrets:)"),
    ("${MY_API_TOKEN}", {"MY_API_TOKEN": "tok-123456789"},
     "${MY_API_TOKEN} is a secret (its name marks a credential)"),
    ("${FROM_DIR}", {}, "${FROM_DIR} comes from the secrets dir (FARM_SECRETS_DIR)"),
    ("${SHOP_URL}", {}, "${SHOP_URL} is a served app's URL, known only when the run starts"),
])
def test_a_secret_in_a_name_is_refused_at_its_line(here, monkeypatch, capsys, name, env, why):
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    write(here / "secrets" / "FROM_DIR", "dir-secret-value\n")
    monkeypatch.setenv("FARM_SECRETS_DIR", str(here / "secrets"))
    write(here / "s" / "farm.yaml", SECRET_SUITE)
    (here / "s" / "app").mkdir()
    write(here / "s" / "c.yaml", CASE.replace("${USER_NAME}", "x").replace(
        "name: js_x", f"name: js_{name}"))
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 4 and "collected" not in out
    assert problems(err) == [
        "farm: 1 problem in suite files:",
        f"  s/c.yaml:8:15: javascript name: {why}; a name takes its variables' values when "
        "the suite loads, from the environment, .env or vars:, never a secret's: it is shown "
        "in the report and results"]
    for value in ("farm-demo-pass", "tok-123456789", "dir-secret-value"):
        assert value not in out + err
