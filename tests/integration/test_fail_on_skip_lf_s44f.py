"""--lf after a run --fail-on-skip made fail takes the skipped cases that made it red (they
failed the run), not every case as after a green run: .farm/lastfailed.json names them."""

from __future__ import annotations

import json

from tests.support.farm_cli import FarmCli

NEEDS_MODEL = """name: needs a model
web:
  url: about:blank
tasks:
  - name: look
    flow:
      - aiAssert: the cart shows one blue mug
"""
PLAIN = """name: plain
web:
  url: about:blank
tasks:
  - name: count
    flow:
      - javascript: "1 + 1"
"""


def test_lf_takes_the_skips_that_failed_the_run(tmp_path):
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "needs_model.yaml").write_text(NEEDS_MODEL)
    (suite / "plain.yaml").write_text(PLAIN)
    farm = FarmCli(tmp_path, FARM_MODEL="")
    strict = farm.run("run", suite, "--report-dir", tmp_path / "r1", "--no-progress",
                      "--fail-on-skip")
    assert strict.returncode == 1, strict.stdout + strict.stderr
    failed = json.loads((tmp_path / "state" / "lastfailed.json").read_text())["failed"]
    assert [f.rsplit("/", 1)[-1] for f in failed] == ["needs_model"]

    again = farm.run("run", suite, "--lf", "--collect-only")
    assert again.returncode == 0, again.stdout + again.stderr
    # (it was skipped, not failed: said apart)
    assert ("--last-failed: would run 1 case(s) that failed last time (1 of them skipped under "
            "--fail-on-skip)") in again.stderr, again.stderr
    assert "farm: 1 case(s) collected" in again.stderr, again.stderr
    assert "s/needs_model  [web]" in again.stdout
