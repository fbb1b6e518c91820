"""An ambiguous target, one of its matches in a frame of another origin (a payment
provider's card field beside the page's own), names that frame: before, the two listed as
the same "input:text", and the tester could not tell which was the page's. Real `farm run`,
real Chromium, two origins (127.0.0.1 and localhost, each a server on a free port)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

CARD = """<!doctype html><html><body><label for="cc">Card number</label>
<input id="cc" type="text"></body></html>"""
PAGE = """<!doctype html><html><body><label for="mine">Card number</label>
<input id="mine" type="text">
<iframe src="{other}/card.html?session=s3cret" width="400" height="120"></iframe>
</body></html>"""


@pytest.fixture
def origins() -> Iterator[tuple[str, str]]:
    class Pages(QuietHandler):
        def do_GET(self) -> None:
            name = self.path.split("?")[0].lstrip("/")
            body = {"card.html": CARD, "page.html": PAGE.replace("{other}", other)}.get(name)
            self.send_page(body.encode() if body else b"", 200 if body else 404)

    with ExitStack() as stack:
        own = stack.enter_context(serving(Pages))
        other = stack.enter_context(serving(Pages)).replace("127.0.0.1", "localhost")
        yield own, other


def test_an_ambiguous_match_names_the_frame_of_another_origin(
        farm: FarmCli, tmp_path: Path, origins: tuple[str, str]) -> None:
    own, other = origins
    (tmp_path / "c.yaml").write_text(
        f"name: c\nweb:\n  url: {own}/page.html\ntasks:\n  - name: t\n    flow:\n"
        "      - aiInput: Card number\n        value: '4242'\n")
    farm.run("run", tmp_path / "c.yaml", "--devices", "browser:1",
             "--report-dir", tmp_path / "run", FARM_LOCATE_OFF="ocr")
    (case,) = results(tmp_path / "run")["cases"]
    error = case["steps"][0]["error"] or ""
    assert '"Card number" is ambiguous' in error, case
    assert f"in the frame of {other}/card.html" in error, error
    assert error.count("in the frame of") == 1 and "s3cret" not in error, error
