"""``${NAME}`` in a web target's userAgent and extraHTTPHeaders values reaches the site with its
value (a token header from the environment), as in its url: the load checks the variable, the
browser sends the value. Real `farm run`, real Chromium, a site that shows its request headers."""

from __future__ import annotations

import html
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration


class _Echo(QuietHandler):
    def do_GET(self) -> None:
        body = "".join(f"<p>{html.escape(k)}: {html.escape(v)}</p>"
                       for k, v in self.headers.items()).encode()
        self.send_page(body, kind="text/html; charset=utf-8")


@pytest.fixture
def echo_site() -> Iterator[str]:
    with serving(_Echo) as url:
        yield url + "/"


def test_variables_in_the_user_agent_and_headers_are_sent_with_their_values(
        farm: FarmCli, tmp_path, echo_site) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "hdr.yaml").write_text(
        f"name: hdr\nweb:\n  url: {echo_site}\n  userAgent: \"agent ${{UA_PART}}\"\n"
        "  extraHTTPHeaders:\n    X-Team: \"${UA_PART}-team\"\n"
        "tasks:\n  - name: t\n    flow:\n"
        "      - assertText: \"agent hello\"\n      - assertText: \"hello-team\"\n")
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run",
                    UA_PART="hello")
    case = results(tmp_path / "run")["cases"][0]
    assert done.returncode == 0, (case.get("error"), done.stdout + done.stderr)
