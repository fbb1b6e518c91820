"""`farm run --broker` with a wrong password, as a user's terminal shows it (stdout and stderr
merged): the cause first, a tally that says the cases did not run, the report's path last, and
the password nowhere (output, results.json, farm.log, report)."""

from __future__ import annotations

import re

import pytest

from tests.support.farm_cli import ROOT, FarmCli
from tests.support.redis_server import RedisServer

pytestmark = pytest.mark.integration


def test_a_wrong_broker_password_is_said_before_a_tally_of_cases_not_run(tmp_path):
    server = RedisServer(password="right-pw").start()
    cli = FarmCli(tmp_path)
    run_dir = tmp_path / "run"
    try:
        proc = cli.start("run", ROOT / "suites" / "demo", "--report-dir", run_dir, "--broker",
                         server.url.replace(":right-pw@", ":WrongPw42@"))
        out = proc.finish(120)
    finally:
        cli.close()
        server.stop()
    assert proc.returncode == 4, out
    lines = out.splitlines()
    assert lines[-1] == str((run_dir / "report.html").resolve()), out
    assert re.fullmatch(r"farm: (\d+ skipped, )?\d+ case\(s\) not run \(counted as errors\) "
                        r"in [\d.]+s \(run \S+\)", lines[-2]), out
    cause = [i for i, line in enumerate(lines) if line.startswith("farm: error: the broker ")]
    assert len(cause) == 1 and cause[0] < len(lines) - 2, out
    assert re.match(r"farm: error: the broker redis://:\*\*\*@127\.0\.0\.1:\d+/0 refused the "
                    "password: ", lines[cause[0]]), out
    assert not re.search(r"\d errors?\b", lines[-2]), out        # not "12 errors"
    assert not any(line.startswith("ERROR ") for line in lines), out
    written = "".join((run_dir / name).read_text()
                      for name in ("results.json", "farm.log", "report.html", "junit.xml"))
    assert "WrongPw42" not in out + written
