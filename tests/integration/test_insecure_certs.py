"""Midscene's ``acceptInsecureCerts`` against the corpus site served over HTTPS with a
self-signed certificate made for the test: without the option the case fails with a clear
certificate error (a test failure, not a device error: no other device is tried); with it, the
page opens and the case passes. A site nobody answers on fails its cases the same way."""

from __future__ import annotations

from pathlib import Path

from tests.support.corpus_site import CorpusSite
from tests.support.farm_cli import FarmCli, results
from tests.support.redis_server import free_port

CASE = """\
web:
  url: ${{SECURE_SITE}}/index.html
{option}tasks:
  - name: the page opens
    flow:
      - assertText: Corpus page
"""


def test_a_self_signed_site_opens_only_with_accept_insecure_certs(farm: FarmCli,
                                                                  tmp_path: Path) -> None:
    suite = tmp_path / "certs"
    suite.mkdir()
    (suite / "strict.yaml").write_text(CASE.format(option=""))
    (suite / "trusting.yaml").write_text(CASE.format(option="  acceptInsecureCerts: true\n"))
    with CorpusSite(tmp_path, https=True) as site:
        assert site.url.startswith("https://")
        done = farm.run("run", suite, "--devices", "browser:2", "--report-dir", tmp_path / "r",
                        SECURE_SITE=site.url)
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    assert cases["certs/trusting"]["status"] == "passed"
    strict = cases["certs/strict"]
    assert strict["status"] == "failed" and strict["attempt"] == 1
    assert strict["error"]["message"] == (
        f"cannot open {site.url}/index.html: the browser does not trust the site's certificate "
        "(net::ERR_CERT_AUTHORITY_INVALID); if you trust it (a self-signed test server), set "
        "acceptInsecureCerts: true in the case's web: section")


REFUSED = """\
web:
  url: http://127.0.0.1:{port}/admin/{n}
tasks:
  - name: the admin page opens
    flow:
      - assertText: Admin
"""


def test_a_site_nobody_answers_on_fails_its_cases_and_blames_no_browser(farm: FarmCli,
                                                                        tmp_path: Path) -> None:
    """The app under test is down: each case fails once, naming Chromium's reason; the browser
    is not retried, blamed or quarantined for it (three infrastructure errors in a row would
    quarantine it), and the case after them runs on it and passes."""
    suite = tmp_path / "down"
    suite.mkdir()
    port = free_port()                       # nothing listens there
    for n in (1, 2, 3):
        (suite / f"admin_{n}.yaml").write_text(REFUSED.format(port=port, n=n))
    (suite / "zz_up.yaml").write_text(CASE.format(option=""))
    with CorpusSite(tmp_path) as site:
        done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "r",
                        SECURE_SITE=site.url)
    assert done.returncode == 1, done.stdout + done.stderr
    data = results(tmp_path / "r")
    assert data["quarantined"] == []
    cases = {c["case_id"]: c for c in data["cases"]}
    assert cases["down/zz_up"]["status"] == "passed"
    for n in (1, 2, 3):
        # the end of the log names each failed case and why
        assert (f"FAILED down/admin_{n} ({suite / f'admin_{n}.yaml'}:2) — cannot open "
                f"http://127.0.0.1:{port}/admin/{n}: nothing answers there") in done.stdout
        admin = cases[f"down/admin_{n}"]
        assert (admin["status"], admin["attempt"]) == ("failed", 1)
        assert admin["error"]["message"] == (
            f"cannot open http://127.0.0.1:{port}/admin/{n}: nothing answers there (is the app "
            "running?) (net::ERR_CONNECTION_REFUSED)")
