"""What a newcomer following the README met on the console: wording the README promises
("as pytest's short summary"), and help / `farm config show` lines that said less than, or
other than, what farm does."""

from __future__ import annotations

from click.testing import CliRunner

from farm.results import CaseResult, RunSummary
from farm.run_console import summary_line


def _case(cid: str, status: str) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      status=status)


def test_the_summary_line_says_errors_as_pytest_does():
    """`farm: 2 error in 3.7s` (pytest: `2 errors`); one error stays `1 error`."""
    two = RunSummary(run_id="r1", started="", duration=3.7,
                     cases=[_case("s/a", "error"), _case("s/b", "error"), _case("s/c", "failed")])
    two.recount()
    assert summary_line(two) == "farm: 1 failed, 2 errors in 3.7s (run r1)"
    one = RunSummary(run_id="r2", started="", duration=1.0, cases=[_case("s/a", "error")])
    one.recount()
    assert summary_line(one) == "farm: 1 error in 1.0s (run r2)"


def test_config_show_says_what_an_empty_metrics_host_and_an_unset_chromium_mean():
    """`metrics_host` printed as nothing at all (the README: default all addresses), and the
    Chromium line said "headless shell first" also when FARM_HEADLESS=false takes
    /usr/bin/chromium."""
    from farm.config import Settings, in_force
    shown = in_force(Settings())
    assert "all addresses" in shown["metrics_host"], shown["metrics_host"]
    assert "FARM_HEADLESS=false" in shown["chromium_path"], shown["chromium_path"]
    assert in_force(Settings(metrics_host="127.0.0.1"))["metrics_host"] == "127.0.0.1"


def test_help_says_how_many_sims_count_makes_and_the_retries_cap():
    """`farm sim --help` listed `-n, --count` with no words; `farm run --help` said
    `--retries [x>=0]` while 11 is refused (capped at 10)."""
    from farm.cli import cli
    sim = " ".join(CliRunner().invoke(cli, ["sim", "--help"]).output.split())
    assert "-n, --count INTEGER RANGE How many devices (phones) to simulate." in sim, sim
    run = " ".join(CliRunner().invoke(cli, ["run", "--help"]).output.split())
    assert "--retries INTEGER RANGE Re-runs after a test failure (at most 10)," in run, run


class _Slot:
    def __init__(self, name: str, platform: str, state: str, detail: str = ""):
        self.name, self.platform, self.state, self.detail = name, platform, state, detail
        self.device = None

    @property
    def usable(self) -> bool:
        return self.state not in ("dead", "quarantined", "done")


def test_a_case_left_without_devices_says_why_they_are_gone():
    """FARM_IOS_WDA_URLS naming a WebDriverAgent that does not answer: the console said only
    `ERROR … — no usable ios device left`; why (`could not start: … Connection refused`) was
    in results.json alone."""
    from farm.executors.local import LocalExecutor
    from farm.schedule import Job
    job = Job(case_id="s/c", platform="ios", expected_seconds=1.0)
    ended = {}
    ex = LocalExecutor.__new__(LocalExecutor)
    ex._slots = {"iphone-1": _Slot("iphone-1", "ios", "dead",
                                   "could not start: iphone-1 lost (status): Connection refused")}
    ex._queue = [job]
    ex.ledger = type("L", (), {"end": lambda self, j, status, error: ended.update(
        status=status, message=str(error))})()
    ex._fail_orphans()
    assert ended["status"] == "error"
    assert ended["message"] == ("no usable ios device left (could not start: iphone-1 lost "
                                "(status): Connection refused)"), ended
