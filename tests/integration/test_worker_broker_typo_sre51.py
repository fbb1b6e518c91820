"""`farm worker` with a broker host name that does not resolve waits for it (a Compose worker
waits for its Redis container's DNS entry), but its waiting line now says what `farm run`
says at once — the name may be mistyped — and, once the wait is over, it ends as `farm run`
does: exit 4 and the same words; the password masked throughout."""

from __future__ import annotations

from pathlib import Path

from tests.support.cluster import CLUSTER_ENV
from tests.support.farm_cli import PLUGIN, FarmCli
from tests.support.suites import write_case

TYPO = "redis://:s3cret-pw@redis-typo-host-sre51.invalid:6379/9"
MASKED = "redis://:***@redis-typo-host-sre51.invalid:6379/9"


def test_worker_waits_for_a_name_that_does_not_resolve_then_says_it_as_farm_run(
        tmp_path: Path, farm: FarmCli) -> None:
    suite = tmp_path / "s"
    write_case(suite, "ok", ["javascript: ok"])
    ran = farm.run("run", suite, "--devices", "fake:1", "--no-progress", "--report-dir",
                   tmp_path / "run", "--broker", TYPO, FARM_DEVICE_PLUGINS=PLUGIN,
                   **CLUSTER_ENV)
    assert ran.returncode == 4, ran.stdout + ran.stderr
    run_said = [line.removeprefix("farm: error: ") for line in ran.stderr.splitlines()
                if line.startswith("farm: error: the broker ")]
    assert len(run_said) == 1 and "is it mistyped?" in run_said[0], ran.stderr

    done = farm.run("worker", "--devices", "fake:1", "--broker", TYPO,
                    FARM_DEVICE_PLUGINS=PLUGIN, FARM_CLUSTER_OUTAGE_SECONDS="1", **CLUSTER_ENV)
    out = done.stdout + done.stderr
    assert done.returncode == 4, out
    assert "s3cret-pw" not in out
    lines = done.stderr.splitlines()
    waiting = [line for line in lines if line.startswith("farm worker: waiting for the broker")]
    assert len(waiting) == 1, out
    assert waiting[0].startswith(f"farm worker: waiting for the broker {MASKED} ("), out
    assert waiting[0].endswith(": up to 1s (FARM_CLUSTER_OUTAGE_SECONDS) (a name that does not "
                               "resolve: is it mistyped?)"), out
    assert lines[-1] == f"farm: error: {run_said[0]}", out

