"""A web case's relative url is read the same way whichever cases share its run: from its own
folder as file://, or from a folder farm serves for it (its ``web.serve``, a suite's
``apps:``), never from a folder served for another case. A file missing from a served folder
fails the case as a missing file:// does, not as the server's 404 page. Real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

FLOW = "tasks:\n  - name: t\n    flow:\n      - assertText: Served page\n"


def test_a_relative_url_does_not_depend_on_the_other_cases_of_the_run(farm: FarmCli,
                                                                     tmp_path: Path) -> None:
    suite = tmp_path / "urls"
    suite.mkdir()
    (suite / "page.html").write_text("<h1>Served page</h1>")
    (suite / "own_file.yaml").write_text("web:\n  url: ./nope.html\n" + FLOW)
    (suite / "served.yaml").write_text("web:\n  serve: .\n  url: page.html\n" + FLOW)
    (suite / "served_missing.yaml").write_text("web:\n  serve: .\n  url: gone.html\n" + FLOW)
    alone = farm.run("run", suite, "-k", "own_file", "--report-dir", tmp_path / "alone")
    done = farm.run("run", suite, "--devices", "browser:2", "--report-dir", tmp_path / "all")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "all")["cases"]}
    for own in (results(tmp_path / "alone")["cases"][0], cases["urls/own_file"]):
        assert own["status"] == "failed", alone.stdout + done.stdout
        assert own["error"]["message"].startswith(
            f"cannot open {(suite / 'nope.html').as_uri()}: no such file")
    assert cases["urls/served"]["status"] == "passed"
    missing = cases["urls/served_missing"]
    assert missing["status"] == "failed"
    assert missing["error"]["message"].endswith(f"/gone.html: no such file {suite / 'gone.html'}")
    assert f"({suite / 'served_missing.yaml'}:3)" in done.stdout
