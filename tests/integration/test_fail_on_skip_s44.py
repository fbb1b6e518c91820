"""A CI job that must not go green on unrun checks: --fail-on-skip (or FARM_FAIL_ON_SKIP=1)
makes a run whose only trouble is a skipped case exit 1, said after the tally; without it a
skip stays exit 0 (as pytest), and a failure is exit 1 either way."""

from __future__ import annotations

from tests.support.farm_cli import FarmCli, results

CASE = """name: {name}
web:
  url: about:blank
tasks:
  - name: look
    flow:
      - aiAssert: the cart shows one blue mug
"""


def _suite(tmp_path):
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "needs_model.yaml").write_text(CASE.format(name="needs a model"))
    return suite


def test_a_skipped_case_fails_the_run_only_when_asked(tmp_path):
    farm, suite = FarmCli(tmp_path, FARM_MODEL=""), _suite(tmp_path)
    plain = farm.run("run", suite, "--report-dir", tmp_path / "r1", "--no-progress")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "fail this run" not in plain.stdout

    strict = farm.run("run", suite, "--report-dir", tmp_path / "r2", "--no-progress",
                      "--fail-on-skip")
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "farm: 1 skipped case(s) fail this run (--fail-on-skip): exit 1" in strict.stdout
    assert results(tmp_path / "r2")["exit_code"] == 1

    by_env = farm.run("run", suite, "--report-dir", tmp_path / "r3", "--no-progress",
                      FARM_FAIL_ON_SKIP="1")
    assert by_env.returncode == 1, by_env.stdout + by_env.stderr
