"""An iPhone killed mid-run, the run's last of its platform: the console said ``RETRY (error)
s3/cart_2`` and then ``ERROR s3/cart_2 …; not retried: …`` (a retry announced, then denied),
and each of the 8 cases left printed its own long ``ERROR … no usable ios device left`` line.
The case's line now says its retry did not run, and the cases no device could run are one
line; results.json still has each case's own error and reason."""

from __future__ import annotations

import io
from pathlib import Path

from farm.attempts import RetryPolicy
from farm.executors.local import LocalExecutor
from farm.progress import PlainProgress
from farm.schedule import Job
from farm.suite.model import Step
from tests.unit.test_executor import make_case, services
from tests.unit.test_not_retried_line_s43b import DiesForGood


def _run(tmp_path: Path, others: int) -> tuple[list[str], dict]:
    dying = make_case("pay", [Step(kind="aiTap", target="Sign in", line=5)])
    rest = [make_case(f"c{i}", [Step(kind="assertText", value="Welcome")])
            for i in range(others)]
    cases = [dying, *rest]
    out = io.StringIO()
    view = PlainProgress(0, len(cases), stream=out)
    ex = LocalExecutor([DiesForGood()], {c.id: c for c in cases}, services(tmp_path),
                       RetryPolicy())
    # the dying case first (longest first), the others queued behind it
    jobs = [Job(dying.id, "web", 9.0)] + [Job(c.id, "web", 1.0) for c in rest]
    outcome = ex.run(jobs, view)
    view.stop()
    return out.getvalue().splitlines(), {r.case_id: r for r in outcome.results}


def test_a_retry_announced_that_never_ran_is_said_so_con50(tmp_path: Path):
    lines, results = _run(tmp_path, 0)
    pay = [line for line in lines if "s/pay" in line and " start " not in line]
    assert pay[0].startswith("[0/1] [d1] RETRY (error) s/pay"), lines
    assert pay[-1].startswith("[1/1] [d1] ERROR s/pay"), lines
    assert pay[-1].endswith("; retry not run: no usable web device left"), lines
    assert not any("not retried" in line for line in lines), lines
    # results.json keeps the reason it had, the same why
    assert results["s/pay"].reason.startswith("not retried: no usable web device left")


def test_cases_no_device_could_run_are_one_line_con50(tmp_path: Path):
    lines, results = _run(tmp_path, 3)
    unrun = [line for line in lines if "no usable web device left" in line
             and "s/pay" not in line]
    assert len(unrun) == 1, lines
    head, _, names = unrun[0].rpartition(": ")
    assert head.startswith("[4/4] [-] ERROR 3 case(s) not run: no usable web device left"), \
        unrun
    assert sorted(names.split(", ")) == ["s/c0", "s/c1", "s/c2"], unrun
    assert lines[-1] == unrun[0], lines       # said before the run ends, after the rest
    for cid in ("s/c0", "s/c1", "s/c2"):      # each case's own verdict stays in results.json
        assert results[cid].status == "error", results[cid]
        assert results[cid].error.message.startswith("no usable web device left"), results[cid]


def test_one_case_no_device_could_run_keeps_its_own_line_con50(tmp_path: Path):
    lines, _ = _run(tmp_path, 1)
    assert lines[-1].startswith("[2/2] [-] ERROR s/c0 0.0s — no usable web device left"), lines


def test_the_live_view_says_them_in_one_line_too_con50(tmp_path: Path):
    from rich.console import Console

    from farm.progress import RichProgress
    dying = make_case("pay", [Step(kind="aiTap", target="Sign in", line=5)])
    rest = [make_case(f"c{i}", [Step(kind="assertText", value="Welcome")]) for i in range(3)]
    cases = [dying, *rest]
    view = RichProgress(0, len(cases))
    out = io.StringIO()
    view.console = Console(file=out, width=400, color_system=None)
    ex = LocalExecutor([DiesForGood()], {c.id: c for c in cases}, services(tmp_path),
                       RetryPolicy())
    ex.run([Job(dying.id, "web", 9.0)] + [Job(c.id, "web", 1.0) for c in rest], view)
    view.stop()
    lines = out.getvalue().splitlines()
    assert any(line.startswith("ERROR [d1] s/pay") and line.endswith(
        "; retry not run: no usable web device left") for line in lines), lines
    unrun = [line for line in lines if "no usable web device left" in line
             and "s/pay" not in line]
    assert len(unrun) == 1 and unrun[0].startswith(
        "ERROR [-] 3 case(s) not run: no usable web device left"), lines
