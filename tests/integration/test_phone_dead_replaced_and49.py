"""A phone the adb server lists as ready ("device") but whose shell is dead is replaced, as a
run takes its phones, by a free listed one that answers (said once): `--devices android:2`
runs on two phones. Before, the run took the first two listed, the dead one ended "dead:
could not start…" and the run went on one phone short while a healthy phone stayed free."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.android_sims import phones_with_page
from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

APP = "com.qa.spare"
PAGE = """<!doctype html><html><head>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<button style="font-size: 24px; margin: 40px">Sign in</button></body></html>"""
CASE = "android:\n  launch: com.qa.spare\ntasks:\n  - name: t\n    flow:\n      - aiTap: Sign in\n"


def test_a_listed_phone_whose_shell_is_dead_is_replaced_by_a_free_one_and49(
        farm: FarmCli, tmp_path: Path):
    suite = tmp_path / "suite"
    suite.mkdir()
    for i in range(4):
        (suite / f"c{i}.yaml").write_text(CASE)
    (tmp_path / "sim").mkdir()
    with phones_with_page(tmp_path / "sim", 3, APP, PAGE, "spare") as sim:
        sim.fault(0, "drop", -1)           # emulator-5554: listed, its shell dead
        done = farm.run("run", suite, "--devices", "android:2", "--no-progress",
                        "--report-dir", tmp_path / "run", ANDROID_ADB_SERVER_PORT=str(sim.port))
    out = done.stdout + done.stderr
    assert "emulator-5554 does not answer" in out and "emulator-5558 is taken instead" in out, out
    assert out.count("emulator-5558 is taken instead") == 1
    assert "dead: could not start" not in out
    summary = results(tmp_path / "run")
    # (the phones that ran a case: one may run all four before the other is up)
    assert 0 < len(summary["devices"]) <= 2, (summary, out)
    assert set(summary["devices"]) <= {"emulator-5556", "emulator-5558"}, (summary, out)
    assert {c["device"] for c in summary["cases"]} <= {"emulator-5556", "emulator-5558"}
    assert all(c["status"] == "passed" for c in summary["cases"]), json.dumps(summary)[:2000]
