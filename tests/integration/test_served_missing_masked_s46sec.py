"""A served page file that is not there, its URL carrying credentials in the query
(``?password=…&api_key=…``): the failure names the URL with those values masked, as any other
URL farm shows, in every file the run writes — not the password in plain text. Real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

_SECRETS = ("QPW1111", "QAK2222", "QSE6666")


def test_a_missing_served_page_names_its_url_with_the_credentials_masked(
        farm: FarmCli, tmp_path: Path) -> None:
    suite = tmp_path / "shop"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text("<h1>Shop</h1>")
    (suite / "farm.yaml").write_text("apps:\n  shop:\n    serve: app\n    env: APP_URL\n")
    (suite / "gone.yaml").write_text(
        "web:\n  url: ${APP_URL}/missing.html?password=QPW1111&api_key=QAK2222"
        "&session=QSE6666\n"
        "tasks:\n  - name: t\n    flow:\n      - assertText: Shop\n")
    reports = tmp_path / "r"
    done = farm.run("run", suite, "--no-progress", "--report-dir", reports,
                    "--junit-xml", tmp_path / "junit.xml")
    assert done.returncode == 1, done.stdout + done.stderr
    case = results(reports)["cases"][0]
    message = case["error"]["message"]
    assert "/missing.html?password=***&api_key=***&session=***: no such file " in message
    # farm.log, results.json, report.html, junit.xml, the results database, history.html
    written = [p for p in tmp_path.rglob("*") if p.is_file() and suite not in p.parents]
    names = {p.name for p in written}
    assert {"farm.log", "junit.xml", "report.html"} <= names, names
    for path in written:
        text = path.read_bytes()
        assert not any(s.encode() in text for s in _SECRETS), path
    assert not any(s in done.stdout + done.stderr for s in _SECRETS)
