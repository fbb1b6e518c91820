"""Midscene's ``acceptInsecureCerts`` against the corpus site served over HTTPS with a
self-signed certificate made for the test: without the option the case fails with a clear
certificate error (a test failure, not a device error: no other device is tried); with it, the
page opens and the case passes."""

from __future__ import annotations

from pathlib import Path

from tests.support.corpus_site import CorpusSite
from tests.support.farm_cli import FarmCli, results

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
