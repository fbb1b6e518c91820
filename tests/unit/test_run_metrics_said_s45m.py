"""What `farm run` says at its end about its metrics (SRE journeys): a gateway that is down
tells where the run's counts wait for the next push; with --metrics-port, the wait for the
final scrape is said as it begins (the run went quiet for up to 15 s, then said 'nothing
scraped')."""

from __future__ import annotations

import urllib.error
from pathlib import Path
from typing import Any

import pytest

from farm import run_metrics
from farm.config import Settings


class _Server:
    """A /metrics server nobody scrapes: what stderr held as the wait began."""

    port = 47595

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys
        self.said_before: str | None = None

    def wait_for_scrape(self, timeout: float) -> bool:
        self.said_before = self.capsys.readouterr().err
        return False

    def stop(self) -> None:
        pass


def test_the_wait_for_the_final_scrape_is_said_before_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    server = _Server(capsys)
    linger = run_metrics._Linger(None)
    run_metrics._last_scrape(server, Settings(metrics_linger_seconds=15), linger)  # type: ignore
    assert server.said_before == ("farm: waiting up to 15s for a scrape of :47595/metrics (the "
                                  "final values; FARM_METRICS_LINGER_SECONDS)\n")
    assert capsys.readouterr().err.startswith("farm: warning: nothing scraped :47595/metrics")


def test_no_wait_no_waiting_line(capsys: pytest.CaptureFixture[str]) -> None:
    server = _Server(capsys)
    run_metrics._last_scrape(server, Settings(metrics_linger_seconds=0),  # type: ignore
                             run_metrics._Linger(None))
    assert server.said_before is None and capsys.readouterr().err == ""


def test_a_push_failing_while_the_run_lasts_says_where_its_counts_wait(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import farm.pushgateway as pushgateway
    made: list[Any] = []

    class _Pushes:
        def __init__(self, *args: Any) -> None:
            made.append(args)

        def stop(self) -> None:
            pass

    monkeypatch.setattr(pushgateway, "RunPushes", _Pushes)
    monkeypatch.setattr(run_metrics, "_pushes", None)
    run_metrics._start_pushes(Settings(pushgateway_url="http://gateway:9091",
                                       state_dir=str(tmp_path / "state"),
                                       pushgateway_interval=30))
    say = made[0][-1]
    say(urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")))
    assert capsys.readouterr().err == (
        "farm: warning: could not push metrics to http://gateway:9091: connection refused "
        "(pushing again every 30 s and at the end, said once; if none gets through, this "
        f"run's counts are kept in {tmp_path / 'state' / 'pushed-metrics.json'} and pushed "
        "with the next run that reaches it)\n")
    monkeypatch.setattr(run_metrics, "_pushes", None)
