"""A secret in a web case's URL whose value holds an "&" (not percent-encoded, as a token
pasted into a suite may) is hidden whole wherever the URL is shown: the URL's own masking
(a credential query value cut at its "&") ran first and left the rest of the secret for the
run's secret mask not to find (`token=***&>Pass1 x` on the console, in results.json, the
report, JUnit and the history). Real `farm run`, real Chromium (a port browsers refuse: the
open fails at once, naming the URL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.suites import write_case

pytestmark = pytest.mark.integration

SECRET = "Sx&>Pass1 x"


def test_a_secret_with_an_ampersand_in_a_url_is_hidden_whole(tmp_path: Path,
                                                              farm: FarmCli) -> None:
    suite = tmp_path / "s"
    write_case(suite, "leaky", ["assertText: Sign in"],
               url="http://127.0.0.1:9/x.html?token=${TOKEN}")
    (suite / "farm.yaml").write_text(f"secrets: [TOKEN]\nvars:\n  TOKEN: '{SECRET}'\n")
    run = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run)
    error = results(run)["cases"][0]["error"]["message"]
    assert error.startswith("cannot open http://127.0.0.1:9/x.html?token=***"), error
    shown = [done.stdout + done.stderr] + [p.read_text(errors="replace")
                                           for p in run.rglob("*") if p.is_file()]
    for piece in ("Pass1", "&>", "&amp;&gt;"):
        assert not any(piece in text for text in shown), piece
