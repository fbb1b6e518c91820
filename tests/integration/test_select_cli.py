"""Selection through `farm run` as a CI job uses it: -x / --maxfail, --last-failed, -k, --tag /
--exclude-tag, --collect-only and --shard, on in-memory `fake` devices (no Chromium). Two runs
(each failing case reads the empty page by OCR, seconds a process) and what --collect-only
lists for the other selections."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def _collect(cli: FarmCli, tmp: Path, *args: str) -> tuple[Any, list[str], dict[str, str]]:
    """`farm run --collect-only ARGS`: its exit and output, the cases it lists and the
    deselected ones with their reasons."""
    done = cli.run("run", tmp / "sel", "--collect-only", "-v", *args)
    picked = [line.split()[0] for line in done.stdout.splitlines()]     # (its case lines only)
    assert all("  [web]  " in line for line in done.stdout.splitlines()), done.stdout
    gone = {line.split()[1].split("/")[-1]: line.split("  ")[-1].strip()   # (on stderr)
            for line in done.stderr.splitlines() if line.startswith("deselected")}
    return done, picked, gone


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
        # the record behind --last-failed is in the state dir, not the --report-dir; a case
        # -x skipped (beta_bad never ran) is not in it
        state = json.loads((tmp_path / "state" / "lastfailed.json").read_text())
        assert state["failed"] == ["sel/alpha_bad"]

        # -k with and/not; deselected cases are not counted as run; --maxfail 2 lets the
        # second failure happen
        done, ran, gone = _run(cli, tmp_path, "k", "-k", "bad and not gamma", "--maxfail", "2")
        assert sorted(ran) == ["alpha_bad", "beta_bad"] and done.returncode == 1
        assert all(case["status"] == "failed" for case in ran.values()), done.stdout
        summary = results(tmp_path / "k")
        assert summary["counts"]["total"] == 2 and len(summary["deselected"]) == 3
        assert gone["gamma_ok"] == "-k bad and not gamma"

        # --last-failed: what failed (alpha_bad by -x, beta_bad by -k) and what the -x run
        # left unrun and no run has run since (a run of other cases does not end them)
        done, picked, gone = _collect(cli, tmp_path, "--last-failed")
        assert picked == ["sel/alpha_bad", "sel/alpha_ok", "sel/beta_bad", "sel/beta_ok",
                          "sel/gamma_ok"], done.stdout + done.stderr
        assert not gone
        assert "--last-failed: would run 2 failed earlier; 3 not run in run " in done.stderr

        # tags: any of --tag, minus --exclude-tag (as --collect-only lists them)
        done, picked, gone = _collect(cli, tmp_path, "--tag", "smoke", "--exclude-tag", "slow")
        assert sorted(picked) == ["sel/alpha_bad", "sel/alpha_ok"], done.stdout + done.stderr
        assert gone["gamma_ok"] == "--exclude-tag slow"
        assert gone["beta_ok"] == "--tag smoke: not tagged so"

        # --collect-only runs nothing and lists every case with its platform
        runs = sorted((tmp_path / "state" / "runs").glob("*"))
        listed = [_collect(cli, tmp_path, "--shard", f"{i}/3") for i in (1, 2, 3)]
        assert all(r.returncode == 0 for r, _, _ in listed)
        assert sorted(p for _, picked, _ in listed for p in picked) == sorted(
            f"sel/{s}" for s in ("alpha_ok", "alpha_bad", "beta_ok", "beta_bad", "gamma_ok"))
        assert "collected" in listed[0][0].stderr
        assert sorted((tmp_path / "state" / "runs").glob("*")) == runs
        bad = cli.run("run", tmp_path / "sel", "--collect-only", "-k", "alpha and")
        assert bad.returncode == 4 and "column" in bad.stderr and "Traceback" not in bad.stderr
    finally:
        cli.close()
