"""Selection through `farm run` as a CI job uses it: -x / --maxfail, --last-failed, -k, --tag /
--exclude-tag, --collect-only and --shard, on in-memory `fake` devices (no Chromium)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.farm_cli import PLUGIN, FarmCli, results
from tests.support.suites import write_case

PASS, FAIL = "sleep: 1", "assertText: not on the empty page"


def _suite(folder: Path) -> Path:
    for stem, step, tags in [("alpha_ok", PASS, "[smoke]"), ("alpha_bad", FAIL, "[smoke]"),
                             ("beta_ok", PASS, "[slow]"), ("beta_bad", FAIL, "[]"),
                             ("gamma_ok", PASS, "[smoke, slow]")]:
        path = write_case(folder, stem, [step])
        path.write_text(f"tags: {tags}\n" + path.read_text())
    return folder


def _run(cli: FarmCli, tmp: Path, label: str, *args: str):
    out = tmp / label
    done = cli.run("run", tmp / "sel", "--devices", "fake:1", "--report-dir", out, *args)
    summary = results(out)
    return done, {c["case_id"].split("/")[-1]: c for c in summary["cases"]}, \
        {d["case_id"].split("/")[-1]: d["reason"] for d in summary["deselected"]}


def test_selection_options_through_the_cli(tmp_path: Path) -> None:
    _suite(tmp_path / "sel")
    cli = FarmCli(tmp_path, FARM_DEVICE_PLUGINS=PLUGIN)
    try:
        # -x: one device takes cases in id order (no history yet): alpha_bad fails first,
        # nothing after it starts
        done, ran, gone = _run(cli, tmp_path, "x", "-x")
        assert done.returncode == 1, done.stdout + done.stderr
        assert ran["alpha_bad"]["status"] == "failed"
        for stem in ("alpha_ok", "beta_bad", "beta_ok", "gamma_ok"):
            assert ran[stem]["status"] == "skipped"
            assert ran[stem]["reason"] == "not run: --maxfail 1 reached"
        # the record behind --last-failed is in the state dir, not the --report-dir
        state = json.loads((tmp_path / "state" / "lastfailed.json").read_text())
        assert state["failed"] == ["sel/alpha_bad"]

        # --last-failed: only what failed (beta_bad never ran), the rest listed as deselected
        done, ran, gone = _run(cli, tmp_path, "lf", "--last-failed")
        assert list(ran) == ["alpha_bad"] and ran["alpha_bad"]["status"] == "failed"
        assert gone["beta_bad"] == "--last-failed: did not fail last time" and len(gone) == 4
        assert "--last-failed: running 1 case(s) that failed last time" in done.stdout

        # -k with and/not; deselected cases are not counted as run
        done, ran, gone = _run(cli, tmp_path, "k", "-k", "beta and not ok")
        assert list(ran) == ["beta_bad"] and done.returncode == 1
        summary = results(tmp_path / "k")
        assert summary["counts"]["total"] == 1 and len(summary["deselected"]) == 4
        assert gone["gamma_ok"] == "-k beta and not ok"

        # --maxfail 2 lets the second failure happen; --last-failed now knows both
        done, ran, _ = _run(cli, tmp_path, "lf2", "--last-failed", "--maxfail", "2")
        assert sorted(ran) == ["alpha_bad", "beta_bad"]

        # tags: any of --tag, minus --exclude-tag
        done, ran, gone = _run(cli, tmp_path, "tags", "--tag", "smoke", "--exclude-tag", "slow")
        assert sorted(ran) == ["alpha_bad", "alpha_ok"]
        assert gone["gamma_ok"] == "--exclude-tag slow"
        assert gone["beta_ok"] == "--tag smoke: not tagged so"

        # --collect-only runs nothing and lists every case with its platform
        listed = [cli.run("run", tmp_path / "sel", "--collect-only", "--shard", f"{i}/3")
                  for i in (1, 2, 3)]
        assert all(r.returncode == 0 for r in listed)
        picked = [line.split()[0] for r in listed for line in r.stdout.splitlines()
                  if "[web]" in line and not line.startswith("deselected")]
        assert sorted(picked) == sorted(f"sel/{s}" for s in ("alpha_ok", "alpha_bad",
                                                              "beta_ok", "beta_bad", "gamma_ok"))
        assert "collected" in listed[0].stdout and not (tmp_path / "state" / "runs").exists() \
            or len(list((tmp_path / "state" / "runs").iterdir())) == 0
        bad = cli.run("run", tmp_path / "sel", "--collect-only", "-k", "alpha and")
        assert bad.returncode == 4 and "column" in bad.stderr and "Traceback" not in bad.stderr
    finally:
        cli.close()

