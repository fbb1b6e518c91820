"""A secret cut in the middle where farm shortens a quoted text ("the screen shows "…Login as
tokSE…" (an alert)") is masked as far as it goes: the text is shortened before it is masked,
and the start of a token is a start on guessing it. A real `farm run` shows the secret near
the end of a long alert, so the failed check's message quotes the alert cut inside it."""

from __future__ import annotations

from pathlib import Path

from farm.suite.vars import Variables
from tests.support.farm_cli import FarmCli, results

TOKEN = "tokSECRETvalue12345"

CASE = """\
name: alert cut inside the secret
web:
  url: about:blank
tasks:
  - name: show it in an alert, then miss a text
    flow:
      - javascript: "document.body.innerHTML = '<div role=alert>' + 'word '.repeat(21) +
          'Login as ${TOKEN} failed</div>'"
      - assertText: Welcome back
"""


def test_the_start_of_a_secret_before_a_cut_is_masked():
    v = Variables({"T": TOKEN}, secrets=["T"])
    assert v.mask("Login as tokSE…") == "Login as ***…"
    assert v.mask(f"{TOKEN[:-1]}…") == "***…"
    assert v.mask(f"{TOKEN}…") == "***…"
    assert v.mask("to… tokX… tokSE") == "to… tokX… tokSE"   # too short, not it, not cut


def test_a_failure_message_quoting_an_alert_cut_inside_a_secret_hides_it(farm: FarmCli,
                                                                       tmp_path: Path):
    suite = tmp_path / "cut"
    suite.mkdir()
    (suite / "farm.yaml").write_text("secrets: [TOKEN]\n")
    (suite / "alert.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run_dir,
                    TOKEN=TOKEN)
    assert done.returncode == 1, done.stdout + done.stderr
    error = results(run_dir)["cases"][0]["steps"][-1]["error"]
    assert "Login as ***…\" (an alert)" in error, error       # cut inside the secret
    for path in (p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"):
        assert "tokSE" not in path.read_text(errors="replace"), path.name
    assert "tokSE" not in done.stdout + done.stderr
