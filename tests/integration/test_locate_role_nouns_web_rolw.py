"""Targets written as Midscene's docs write them ("Sign in button", "the Username field")
pass with no model, through real `farm run` on real Chromium; "Login button" on a button
reading "Sign in" still fails, naming it. Before, each of the first failed with no model:
`no element matches "Sign in button"; the closest on screen is "Sign in" (button)`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body><h1>Sign in</h1>
<form id="f"><label for="username">Username</label>
<input id="username" type="text" placeholder="Enter your username">
<label><input id="terms" type="checkbox"> Terms</label>
<button id="login-button" type="submit">Sign in</button></form>
<p id="said"></p>
<script>
document.getElementById('f').addEventListener('submit', (e) => {
  e.preventDefault();
  const terms = document.getElementById('terms').checked ? ' (terms)' : '';
  document.getElementById('said').textContent =
    'Signed in as ' + document.getElementById('username').value + terms;
});
</script></body></html>"""

CASES = {
    "phrases": """web:
  url: ${QA_URL}/login.html
tasks:
  - name: t
    flow:
      - aiInput: bob
        locate: the Username field
      - aiTap: Terms checkbox
      - aiTap: the Sign in button
        deepThink: true
      - assertText: Signed in as bob (terms)
""",
    "login_button": """web:
  url: ${QA_URL}/login.html
tasks:
  - name: t
    flow:
      - aiTap: Login button
""",
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str]:
    tmp = tmp_path_factory.mktemp("roles")
    suite = tmp / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  qa:\n    serve: app\n"
                                     "    env: QA_URL\n")
    (suite / "app" / "login.html").write_text(PAGE)
    for name, case in CASES.items():
        (suite / f"{name}.yaml").write_text(case)
    farm = FarmCli(tmp)
    try:
        done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp / "run")
    finally:
        farm.close()
    cases = {c["case_id"].rsplit("/", 1)[-1]: c for c in results(tmp / "run")["cases"]}
    return cases, done.stdout + done.stderr


def test_text_plus_a_role_noun_passes_with_no_model_and_says_how(run) -> None:
    cases, output = run
    case = cases["phrases"]
    assert case["status"] == "passed", (case.get("error"), output)
    steps = case["steps"]
    assert [s["tier"] for s in steps[:3]] == ["text", "text", "text"]
    assert steps[0]["notes"] == ['found by text "Username" (field)']
    assert steps[1]["notes"] == ['found by text "Terms" (checkbox)']
    assert steps[2]["notes"] == ['found by text "Sign in" (button)',
                                 "deepLocate (deepThink) not used: the text tier found it "
                                 "with no model"]


def test_no_synonyms_login_button_fails_naming_the_closest(run) -> None:
    cases, output = run
    case = cases["login_button"]
    assert case["status"] == "failed", output
    assert case["error"]["message"].splitlines()[0] == (
        'no element matches "Login button"; the closest on screen is "Sign in" (button)')
