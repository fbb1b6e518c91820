"""A secret of more than one line (a PEM key, a two-line token file in FARM_SECRETS_DIR) comes
back from a page with its line break as a space: innerText, the UI tree and the text checks'
hints collapse each run of whitespace into one. A real `farm run` shows it on a page and reads
it back: no output holds it."""

from __future__ import annotations

from pathlib import Path

from farm.suite.vars import Variables
from tests.support.farm_cli import FarmCli, results

SECRET = "-----BEGIN KEY-----\nMl1oneAbc9\tMl2two  Xyz7\n-----END KEY-----"
SHOWN = " ".join(SECRET.split())        # as innerText reads it

FARM_YAML = """\
apps:
  site:
    serve: app
    env: SITE_URL
"""

CASE = """\
name: a page shows the key
web:
  url: ${SITE_URL}/index.html
tasks:
  - name: shows it
    flow:
      - javascript: "document.querySelector('#shown').textContent = `Key: ${DEPLOY_KEY}`; 1"
      - javascript: "document.querySelector('#shown').innerText"
"""


def test_a_secret_with_its_whitespace_collapsed_is_masked():
    v = Variables({"K": SECRET}, secrets=["K"])
    assert v.mask(f"Key: {SHOWN}.") == "Key: ***."
    assert v.mask(SECRET) == "***"
    assert v.mask("-----BEGIN KEY-----") == "-----BEGIN KEY-----"


def test_a_multi_line_secret_a_page_shows_is_in_no_output(farm: FarmCli, tmp_path: Path):
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "DEPLOY_KEY").write_text(SECRET + "\n", encoding="utf-8")
    suite = tmp_path / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text('<!doctype html><div id="shown"></div>')
    (suite / "farm.yaml").write_text(FARM_YAML)
    (suite / "key.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run_dir,
                    "--junit-xml", tmp_path / "junit.xml", FARM_SECRETS_DIR=str(secrets))
    assert done.returncode == 0, done.stdout + done.stderr
    step = results(run_dir)["cases"][0]["steps"][-1]
    assert step["output"] == "Key: ***", step        # the page read it back collapsed
    written = [p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"]
    for path in [*written, tmp_path / "junit.xml"]:
        text = path.read_text(errors="replace")
        assert "Xyz7" not in text and "Ml1oneAbc9" not in text, path.name
    assert "Xyz7" not in done.stdout + done.stderr
