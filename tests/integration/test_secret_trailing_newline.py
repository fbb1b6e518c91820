"""A secret handed over with a trailing newline (a CI or Kubernetes secret read from a file
often ends in one) is still masked where it comes back without it: an input field drops the
newline and a page's text collapses it, so what a page, a script or an error shows is the
trimmed value. A real `farm run` types the secret into the demo shop's password field and
reads the field back."""

from __future__ import annotations

from pathlib import Path

from farm.suite.vars import Variables
from tests.support.farm_cli import ROOT, FarmCli, results

SECRET = "hunter2-trimmed-9Zq"

FARM_YAML = f"""\
secrets: [DEMO_PASSWORD]
apps:
  shop:
    serve: {ROOT / "suites" / "demo" / "app"}
    env: FARM_DEMO_URL
"""

CASE = """\
name: types the password and reads the field back
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: type it
    flow:
      - aiInput: Password
        value: ${DEMO_PASSWORD}
      - javascript: "'typed: ' + document.querySelector('input[type=password]').value"
"""


def test_the_trimmed_value_of_a_secret_is_masked_too():
    v = Variables({"P": f"{SECRET}\n", "Q": " \n"}, secrets=["P", "Q"])
    assert v.mask(f"shows {SECRET}.") == "shows ***."
    assert v.mask(f"{SECRET}\n") == "***"
    assert v.mask("a b") == "a b"        # a secret of whitespace alone hides no space


def test_a_secret_ending_in_a_newline_is_in_no_file_of_the_run(farm: FarmCli, tmp_path: Path):
    suite = tmp_path / "trailing"
    suite.mkdir()
    (suite / "farm.yaml").write_text(FARM_YAML)
    (suite / "typed.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run_dir,
                    DEMO_PASSWORD=SECRET + "\n")
    assert done.returncode == 0, done.stdout + done.stderr
    step = results(run_dir)["cases"][0]["steps"][-1]
    assert step["output"] == "typed: ***", step       # the field held the trimmed secret
    for path in (p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"):
        assert SECRET not in path.read_text(errors="replace"), path.name
    assert SECRET not in done.stdout + done.stderr
