"""A case whose page is a file of its own ``serve:`` folder that is not there fails once, not
once per --retries: a second attempt a millisecond later found it missing again (two 1 ms
attempts, the same result). It says "not retried: …" as a timed-out case does; a served
page that is there and fails an assertion is still retried. Real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results


def test_a_missing_served_file_is_not_retried_and_says_so(farm: FarmCli,
                                                          tmp_path: Path) -> None:
    suite = tmp_path / "shop"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text("<h1>Shop</h1>")
    (suite / "promo.yaml").write_text(
        "web:\n  serve: app\n  url: promotions.html\n"
        "tasks:\n  - name: t\n    flow:\n      - assertText: Shop\n")
    (suite / "own.yaml").write_text(             # a file:// page beside it, not there
        "web:\n  url: ./nope.html\n"
        "tasks:\n  - name: t\n    flow:\n      - assertText: Shop\n")
    (suite / "wrong.yaml").write_text(
        "web:\n  serve: app\n  url: index.html\n"
        "tasks:\n  - name: t\n    flow:\n      - assertText: Checkout\n")
    done = farm.run("run", suite, "--retries", "1", "--no-progress",
                    "--report-dir", tmp_path / "r")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    promo = cases["shop/promo"]
    assert promo["status"] == "failed"
    assert promo["error"]["message"].endswith(
        f"promotions.html: no such file {suite / 'app' / 'promotions.html'}")
    assert not promo.get("previous"), promo            # one attempt, not two
    assert promo["reason"].startswith("not retried: a missing page file is not retried")
    line = next(x for x in done.stdout.splitlines() if x.startswith("FAILED shop/promo "))
    assert "; not retried: a missing page file is not retried" in line, done.stdout
    assert " after 2 attempts" not in line
    own = cases["shop/own"]
    assert own["error"]["message"] == (
        f"cannot open {(suite / 'nope.html').as_uri()}: no such file {suite / 'nope.html'}")
    assert not own.get("previous"), own
    assert own["reason"].startswith("not retried: a missing page file is not retried")
    wrong = cases["shop/wrong"]                         # an ordinary failure: retried
    assert wrong["status"] == "failed"
    assert len(wrong["previous"]) == 1, wrong
    assert "not retried" not in (wrong.get("reason") or "")
