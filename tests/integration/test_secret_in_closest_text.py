"""A failed assertText quotes the page's text closest to the expected one, a run of its words;
that run can end inside a secret of several words (a passphrase, a key shown over two lines),
and masking the run afterwards left the secret's first words. A real `farm run` shows both
next to text checks that fail: the hint quotes the line masked whole, and no output holds
any word of either secret."""

from __future__ import annotations

from pathlib import Path

from farm.agent.screen_hint import closest
from farm.suite.vars import Variables
from tests.support.farm_cli import FarmCli, results

PHRASE = "quartz horse battery staple"
KEY = "-----BEGIN KEY-----\nMl1oneAbc9 Ml2two Xyz7\n-----END KEY-----"

FARM_YAML = """\
secrets: [PHRASE, DEPLOY_KEY]
apps:
  site:
    serve: app
    env: SITE_URL
"""

CASE = """\
name: a page shows secrets
web:
  url: ${SITE_URL}/index.html
tasks:
  - name: shows the phrase
    continueOnError: true
    flow:
      - javascript: "document.querySelector('#phrase').textContent = 'Your phrase is: ${PHRASE}'"
      - assertText: "Your phrase is: quarry"
  - name: shows the key
    continueOnError: true
    flow:
      - javascript: "document.querySelector('#key').textContent = `Key: ${DEPLOY_KEY}`; 1"
      - assertText: "Key: -----BEGIN KEY----- Ml1oneAbc8 Ml2two Xyz8"
"""


def test_the_closest_text_cut_inside_a_secret_is_its_line_masked():
    mask = Variables({"P": PHRASE}, secrets=["P"]).mask
    screen = f"Welcome, Ada\nYour phrase is: {PHRASE}"
    assert closest("Your phrase is: quarry", screen) == "Your phrase is: quartz"
    assert closest("Your phrase is: quarry", screen, mask) == "Your phrase is: ***"
    assert closest("Welcome, Bob", screen, mask) == "Welcome, Ada"     # no secret there


def test_a_failed_text_check_quotes_no_word_of_a_secret(farm: FarmCli, tmp_path: Path):
    suite = tmp_path / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(
        '<!doctype html><p id="phrase"></p><div id="key"></div>')
    (suite / "farm.yaml").write_text(FARM_YAML)
    (suite / "shows.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run_dir,
                    "--junit-xml", tmp_path / "junit.xml", PHRASE=PHRASE, DEPLOY_KEY=KEY)
    # failed checks in continueOnError tasks: the case fails (Midscene: partialFailed)
    assert done.returncode == 1, done.stdout + done.stderr
    steps = results(run_dir)["cases"][0]["steps"]
    checks = [s for s in steps if s["kind"] == "assertText"]
    assert [s["status"] for s in checks] == ["failed", "failed"], steps
    assert checks[0]["error"].endswith('the closest text on it is "Your phrase is: ***"'), steps
    assert checks[1]["error"].endswith('the closest text on it is "Key: ***"'), steps
    written = [p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"]
    for path in [*written, tmp_path / "junit.xml"]:
        text = path.read_text(errors="replace")
        assert "quartz" not in text and "Ml1oneAbc9" not in text, path.name
    out = done.stdout + done.stderr
    assert "quartz" not in out and "Ml1oneAbc9" not in out, out
