"""A value one suite declares a secret is hidden from the whole run's outputs, also where a
case of another suite of the same run (which does not declare it) shows it: results.json and
the report are one for the run. A cluster run did so already (its client masks each worker's
records with every secret of the run); a local run wrote the value into the other suite's
results."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, by_name, results

LOGIN = "login-secret-77Qz"

CASE = """\
name: {name}
web:
  url: about:blank
tasks:
  - name: show it
    flow:
      - javascript: "'login is ' + '${{LOGIN}}'"
"""


def test_a_secret_of_one_suite_is_masked_in_another_suites_case(farm: FarmCli,
                                                                tmp_path: Path):
    for suite, declared in (("declares", "secrets: [LOGIN]\n"), ("uses", "retries: 0\n")):
        (tmp_path / suite).mkdir()
        (tmp_path / suite / "farm.yaml").write_text(declared)
        (tmp_path / suite / f"{suite}.yaml").write_text(CASE.format(name=suite))
    run_dir = tmp_path / "run"
    done = farm.run("run", tmp_path / "declares", tmp_path / "uses", "--devices", "browser:1",
                    "--report-dir", run_dir, LOGIN=LOGIN)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = by_name(results(run_dir))
    assert {name: c["steps"][0]["output"] for name, c in cases.items()} == {
        "declares": "login is ***", "uses": "login is ***"}
    for path in (p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"):
        assert LOGIN not in path.read_text(errors="replace"), path.name
    assert LOGIN not in done.stdout + done.stderr
