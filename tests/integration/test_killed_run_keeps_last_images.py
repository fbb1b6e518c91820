"""A farm killed outright (SIGKILL: a CI job's time limit) keeps what its cases had shown. A
case waiting long (a `sleep`, a `waitForText` whose text never comes) held the image of the
step before in memory, its capture in, for as long as it waited: the rebuilt report of the
killed run had that case with no step at all. An image that is in goes to disk when the case
starts to wait, and the journal keeps each step as it ends: the rebuilt case has the steps it
had finished, with their images. Real Chromium, `farm run`, kill -9, `farm report`."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results, wait_for
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

PAGE = (b"<button onclick=\"document.body.insertAdjacentHTML('beforeend', '<p>Clicked</p>')\">"
        b"Press me</button>")


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            self.send_page(PAGE)

    with serving(Handler) as url:
        yield url


@pytest.mark.parametrize("wait", ["sleep: 600000",
                                  "waitForText: Never shown\n        timeout: 600000"])
def test_the_image_before_a_long_wait_survives_a_kill(farm: FarmCli, tmp_path: Path,
                                                      site: str, wait: str) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "waits.yaml").write_text(
        f"web:\n  url: {site}/\ntasks:\n  - name: t\n    flow:\n      - aiTap: Press me\n"
        f"      - {wait}\n")
    run_dir = tmp_path / "run"
    proc = farm.start("run", suite, "--devices", "browser:1", "--report-dir", run_dir)
    try:
        proc.wait_for_line("start suite/waits")
        # the tap's after-image: on disk while the case waits, not only when it ends
        shot = wait_for(lambda: next(run_dir.glob("artifacts/**/*-step1.jpg"), None), 60,
                        "the tap's image on disk while the next step waits")
        proc.send_signal(signal.SIGKILL)
        proc.finish()
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
    done = farm.run("report", run_dir)
    assert done.returncode in (0, 1, 2), done.stdout + done.stderr
    case = results(run_dir)["cases"][0]
    assert case["status"] == "interrupted"
    assert case["reason"] == ("farm stopped while it ran: the steps it had finished are kept, "
                              "not the one it was in")
    assert [s["status"] for s in case["steps"]] == ["passed"]
    assert case["screenshot"] == case["steps"][0]["after"]
    tap = case["steps"][0]
    assert tap["after"] == shot.relative_to(run_dir).as_posix()
    assert shot.stat().st_size > 0
