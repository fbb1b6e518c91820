"""A Midscene batch file's ``concurrent`` and ``continueOnError: false`` are the batch's own:
`farm run` in real Chromium of a suite holding a shareBrowserContext batch in a subfolder
beside other cases. Before, the batch made the whole run --maxfail 1 on one browser, even when
-k had deselected every file of it ("good/子目录/batch.yaml: concurrent 1 (--devices
browser:1), continueOnError false: no file starts after a failure", then an unrelated case
skipped: "stopped after 1 failed case(s) (--maxfail 1)")."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

CASE = """name: {name}
web:
  url: "data:text/html,<h1>Shop</h1>"
tasks:
  - name: look
    flow:
      - assertText: {text}
"""


def _suite(root: Path) -> Path:
    suite = root / "suite"
    (suite / "子目录").mkdir(parents=True)
    for name, text in (("a_bad", "Absent words"), ("b_ok", "Shop"), ("c_ok", "Shop")):
        (suite / f"{name}.yaml").write_text(CASE.format(name=name, text=text))
    (suite / "子目录" / "one.yaml").write_text(CASE.format(name="one", text="Absent words"))
    (suite / "子目录" / "two.yaml").write_text(CASE.format(name="two", text="Shop"))
    (suite / "子目录" / "batch.yaml").write_text(
        "files:\n  - one.yaml\n  - two.yaml\nshareBrowserContext: true\nconcurrent: 1\n")
    return suite


def _statuses(run: Path) -> dict[str, tuple[str, str | None]]:
    return {c["case_id"]: (c["status"], c.get("reason")) for c in results(run)["cases"]}


def test_a_batch_none_of_whose_files_runs_changes_nothing(farm: FarmCli, tmp_path: Path):
    suite = _suite(tmp_path)
    done = farm.run("run", suite, "--devices", "browser:2", "-k", "a_bad or b_ok or c_ok",
                    "--report-dir", tmp_path / "r")
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "batch.yaml" not in said and "--maxfail" not in said, said
    assert _statuses(tmp_path / "r") == {"suite/a_bad": ("failed", None),
                                         "suite/b_ok": ("passed", None),
                                         "suite/c_ok": ("passed", None)}
    # (the devices that ran a case: under load one browser may run them all before the other
    # is up)
    ran = results(tmp_path / "r")["devices"]
    assert ran and set(ran) <= {"browser-1", "browser-2"}, ran


def test_a_batch_s_failed_file_stops_only_its_own_files(farm: FarmCli, tmp_path: Path):
    suite = _suite(tmp_path)
    done = farm.run("run", suite, "--devices", "browser:2", "--report-dir", tmp_path / "r")
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "--maxfail" not in said and "--devices browser:1" not in said, said
    got = _statuses(tmp_path / "r")
    assert got.pop("suite/子目录/two") == (
        "skipped", "not run: one.yaml failed (the batch has continueOnError: false)")
    assert got == {"suite/a_bad": ("failed", None), "suite/b_ok": ("passed", None),
                   "suite/c_ok": ("passed", None), "suite/子目录/one": ("failed", None)}
    # (the devices that ran a case: under load one browser may run them all before the other
    # is up)
    ran = results(tmp_path / "r")["devices"]
    assert ran and set(ran) <= {"browser-1", "browser-2"}, ran
