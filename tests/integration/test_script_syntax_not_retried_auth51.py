"""A `javascript:` step whose code does not parse failed the same way on every attempt, yet
was run again under `retries:`. It now fails once and says why, as a missing page does
("…; not retried: a script's syntax error is not retried"); a SyntaxError the code throws as
it runs (JSON.parse of a reply, which the next attempt may cure) is still retried. Real
Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

CASE = ("retries: 1\nweb:\n  url: data:text/html,<h1>hi</h1>\n"
        "tasks:\n  - name: t\n    flow:\n      - javascript: {code}\n")


def test_a_script_that_does_not_parse_is_not_retried(farm: FarmCli, tmp_path: Path) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "typo.yaml").write_text(CASE.format(code="\"return document.title +\""))
    (suite / "parse.yaml").write_text(CASE.format(code="\"return JSON.parse('<html>')\""))
    done = farm.run("run", suite, "--no-progress", "--report-dir", tmp_path / "r")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    typo = cases["s/typo"]
    assert typo["status"] == "failed"
    assert "SyntaxError" in typo["error"]["message"], typo
    assert not typo.get("previous"), typo                   # one attempt, not two
    assert typo["reason"].startswith("not retried: a script's syntax error is not retried")
    line = next(x for x in done.stdout.splitlines() if x.startswith("FAILED s/typo "))
    assert "; not retried: a script's syntax error is not retried" in line, done.stdout
    parse = cases["s/parse"]                                 # thrown as it ran: retried
    assert parse["status"] == "failed"
    assert "SyntaxError" in parse["error"]["message"], parse
    assert len(parse["previous"]) == 1, parse
    assert "not retried" not in (parse.get("reason") or "")
