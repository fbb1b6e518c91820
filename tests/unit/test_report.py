"""The run report: junit.xml for CI and report.html for people."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml, Skipped, xunit2

from farm.report.html import format_duration, render_html, write_html
from farm.report.junit import write_junit, xml_safe
from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from tests.support.reports import five_hundred_cases

HOSTILE = "<script>alert(1)</script>"


def make_jpeg(run_dir: Path, rel: str, color: str = "steelblue") -> str:
    from PIL import Image

    path = run_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (64, 40), color).save(path, "JPEG", quality=60)
    return rel


def make_marked(run_dir: Path, before: str) -> str:
    """The marked copy of ``before`` as farm writes it: an SVG with a tap dot over it."""
    from farm.report.marks import marks_svg
    from farm.results import Mark
    rel = before.replace("-before.jpg", "-marked.svg")
    (run_dir / rel).write_bytes(marks_svg((run_dir / before).read_bytes(),
                                          [Mark(kind="tap", points=[[32, 20]])], [20, 10, 24, 20],
                                          "xpath", [64, 40]))
    return rel


def step(task: str, index: int, label: str, run_dir: Path | None = None, status: str = "passed",
         shots: bool = True, **kw) -> StepRecord:
    before, after, marked = kw.pop("before", None), None, kw.pop("marked", False)
    if shots and run_dir is not None:
        base = f"artifacts/{task.replace(' ', '-')}/step-{index}"
        before = make_jpeg(run_dir, f"{base}-before.jpg", "lightgray")
        after = make_jpeg(run_dir, f"{base}-after.jpg", "seagreen")
        kw["marked"] = make_marked(run_dir, before) if marked else None
    return StepRecord(task=task, index=index, kind=label.split()[0], label=label, line=10 + index,
                      status=status, duration=0.25 * index, before=before, after=after, **kw)


def make_summary(run_dir: Path) -> RunSummary:
    """Seven cases over two suites, one of every status plus a hostile name."""
    ev = make_jpeg(run_dir, "artifacts/shop-checkout/attempt-1/failure.jpg", "firebrick")
    cases = [
        CaseResult(
            run_id="r1", case_id="demo/login", name="Login works", file="suites/demo/login.yaml",
            line=1, platform="web", device="browser-1", status="passed", duration=3.2,
            tokens={"prompt": 1200, "completion": 80},
            steps=[step("Open app", 1, 'aiTap "Sign in"', run_dir, tier="xpath", marked=True),
                   step("Log in", 2, 'aiInput "Email" = "${USER}"', run_dir, tier="text"),
                   step("Log in", 3, 'assertText "Welcome"', run_dir, shots=False)]),
        CaseResult(
            run_id="r1", case_id="shop/checkout", name="Checkout total", line=4,
            file="suites/shop/checkout.yaml", platform="web", device="browser-2", status="failed",
            duration=5.0, screenshot=ev,
            error=CaseError(kind="AssertionFailed", message='text "Total: 42" not found', step=2),
            steps=[step("Pay", 1, 'aiTap "Checkout"', run_dir),
                   step("Pay", 2, 'assertText "Total: 42"', run_dir, status="failed",
                        error='text "Total: 42" not found')]),
        CaseResult(
            run_id="r1", case_id="shop/search", name="Search results",
            file="suites/shop/search.yaml",
            platform="android", device="emulator-5554", attempt=2, status="error", duration=30.0,
            error=CaseError(kind="DeviceLost", message="adb: device offline"),
            previous=[CaseResult(run_id="r1", case_id="shop/search", name="Search results",
                                 file="suites/shop/search.yaml", platform="android",
                                 device="browser-1", status="error",
                                 error=CaseError(kind="DeviceLost", message="browser closed"))]),
        CaseResult(
            run_id="r1", case_id="demo/ai", name="Needs a model", file="suites/demo/ai.yaml",
            platform="web", status="skipped", reason="step 1 aiAct needs a model"),
        CaseResult(
            run_id="r1", case_id="demo/cart", name="Cart badge", file="suites/demo/cart.yaml",
            platform="web", device="browser-1", attempt=2, status="flaky", duration=2.0,
            steps=[step("Cart", 1, 'aiTap "Add"', run_dir)],
            previous=[CaseResult(run_id="r1", case_id="demo/cart", name="Cart badge",
                                 file="suites/demo/cart.yaml", platform="web", device="browser-2",
                                 status="failed", error=CaseError(kind="LocateError",
                                                                  message="no element 'Add'"))]),
        CaseResult(
            run_id="r1", case_id="demo/long", name="Long flow", file="suites/demo/long.yaml",
            platform="web", device="browser-2", status="interrupted",
            error=CaseError(kind="Interrupted", message="Ctrl-C")),
        CaseResult(
            run_id="r1", case_id="demo/hostile", name=HOSTILE, file="suites/demo/<x>.yaml",
            platform="web", device="browser-1", status="failed",
            error=CaseError(kind="StepFailed", message="bad \x00\x1b char & ]]> <b>bold</b>",
                            step=1),
            steps=[step("<img src=x onerror=alert(2)>", 1, f'javascript "{HOSTILE}"', None,
                        status="failed", error="threw <svg onload=alert(3)>\x1b[2J\x07",
                        output={"v": "<i>"},
                        before="artifacts/does-not-exist.jpg")]),
    ]
    summary = RunSummary(run_id="r1", started="2024-05-01T10:00:00.000+00:00", duration=75.5,
                         devices=["browser-1", "browser-2", "emulator-5554"], cases=cases,
                         farm_version="0.1.0")
    summary.recount()
    return summary


@pytest.fixture()
def run(tmp_path: Path) -> tuple[Path, RunSummary]:
    return tmp_path, make_summary(tmp_path)


# -- junit ---------------------------------------------------------------------------------------

def _cases(xml: JUnitXml) -> dict[str, xunit2.TestCase]:
    """Each testcase by what CI keys its history on, classname/name: the case id."""
    return {f"{c.classname}/{c.name}": c for suite in xml for c in suite}


def test_junit_counts_per_kind(run):
    run_dir, summary = run
    xml = xunit2.JUnitXml.fromfile(str(write_junit(summary, run_dir / "junit.xml")))
    xml.update_statistics()
    assert (xml.tests, xml.failures, xml.errors) == (7, 2, 2)
    suites = {s.name: s for s in xml}
    assert set(suites) == {"demo", "shop"}
    assert (suites["shop"].tests, suites["shop"].failures, suites["shop"].errors) == (2, 1, 1)
    assert (suites["demo"].tests, suites["demo"].skipped, suites["demo"].errors) == (5, 1, 1)
    assert dict((p.name, p.value) for p in suites["demo"].properties())["run_id"] == "r1"


def test_junit_results_name_the_failing_step(run):
    run_dir, summary = run
    cases = _cases(xunit2.JUnitXml.fromfile(str(write_junit(summary, run_dir / "junit.xml"))))
    checkout = cases["shop/checkout"]
    (failure,) = checkout.result
    assert isinstance(failure, Failure)
    assert failure.message == 'text "Total: 42" not found'
    assert 'step 2, line 12 [Pay]: assertText "Total: 42"' in failure.text
    assert checkout.classname == "shop" and checkout.time == 5.0
    assert "file: suites/shop/checkout.yaml:4" in checkout.system_out

    (error,) = cases["shop/search"].result
    assert isinstance(error, Error) and error.type == "DeviceLost"
    (rerun,) = cases["shop/search"].rerun_errors()
    assert rerun.message.startswith("attempt 1 error on browser-1")
    (interrupted,) = cases["demo/long"].result
    assert isinstance(interrupted, Error) and interrupted.type == "Interrupted"
    (skipped,) = cases["demo/ai"].result
    assert isinstance(skipped, Skipped) and skipped.message == "step 1 aiAct needs a model"


def facts(case: xunit2.TestCase) -> dict[str, str]:
    """The ``name: value`` lines that open a testcase's system-out."""
    head = (case.system_out or "").split("\n\n", 1)[0]
    return dict(line.split(": ", 1) for line in head.splitlines())


def test_junit_case_facts_and_flaky(run):
    run_dir, summary = run
    cases = _cases(xunit2.JUnitXml.fromfile(str(write_junit(summary, run_dir / "junit.xml"))))
    props = facts(cases["demo/login"])
    assert props["title"] == "Login works"
    assert props["device"] == "browser-1" and props["platform"] == "web"
    assert props["attempt"] == "1" and props["tokens.prompt"] == "1200"
    flaky = cases["demo/cart"]
    assert flaky.is_passed and flaky.is_flaky
    assert facts(flaky)["flaky"] == "true"
    assert flaky.flaky_failures()[0].type == "LocateError"


def test_junit_is_valid_for_jenkins_xunit(run):
    """The strict schema Jenkins' xUnit plugin validates against (vendored in tests/schemas),
    classname = the case's folder, failure screenshots as [[ATTACHMENT|absolute path]]."""
    import xmlschema
    run_dir, summary = run
    summary.cases[0].case_id = "demo/auth/login"
    path = write_junit(summary, run_dir / "junit.xml")
    xmlschema.XMLSchema(str(Path(__file__).parents[1] / "schemas" / "junit-10.xsd")).validate(
        str(path))
    cases = _cases(xunit2.JUnitXml.fromfile(str(path)))
    login = cases["demo/auth/login"]
    assert (login.classname, login.name) == ("demo/auth", "login")
    shot = (run_dir / "artifacts/shop-checkout/attempt-1/failure.jpg").resolve()
    assert f"[[ATTACHMENT|{shot}]]" in cases["shop/checkout"].system_out
    assert "[[ATTACHMENT|" not in login.system_out


def test_junit_survives_xml_hostile_text(run):
    run_dir, summary = run
    text = write_junit(summary, run_dir / "junit.xml").read_text(encoding="utf-8")
    assert "\x00" not in text and "\x1b" not in text
    cases = _cases(xunit2.JUnitXml.fromstring(text.encode()))
    hostile = cases["demo/hostile"]
    assert hostile.result[0].message == "bad \\x00\\x1b char & ]]> <b>bold</b>"   # as the console
    assert facts(hostile)["title"] == HOSTILE
    assert xml_safe("a\ud800b\ufffec\U0001F600") == "abc\U0001F600"
    assert xml_safe("\x08\x0b\x0c\x1f\t\n\r\ud7ff\ue000\ufffd") == "\t\n\r\ud7ff\ue000\ufffd"


def test_junit_keeps_line_breaks_and_tabs_a_ci_tool_shows(run):
    """A parser turns a raw line break or tab in an attribute into a space: a name with a tab
    reads back as written; a failure's lines stay lines (a CR shows as the console shows it,
    \\x0d); a title over two lines stays one fact line."""
    run_dir, summary = run
    summary.cases[1].case_id = "shop/check\tout"
    summary.cases[1].name = "Checkout\ntotal\tin EUR"
    summary.cases[1].error.message = "total\r\nwas 41"
    cases = _cases(xunit2.JUnitXml.fromfile(str(write_junit(summary, run_dir / "junit.xml"))))
    checkout = cases["shop/check\tout"]
    failure = checkout.result[0]
    assert failure.message == "total"
    assert "AssertionFailed: total\\x0d\nwas 41" in failure.text
    assert facts(checkout)["title"] == "Checkout total in EUR"


# -- html ----------------------------------------------------------------------------------------

def test_html_escapes_hostile_strings(run):
    run_dir, summary = run
    page = write_html(summary, run_dir).read_text(encoding="utf-8")
    for name in ["Login works", "Checkout total", "Search results", "Needs a model", "Cart badge",
                 "Long flow"]:
        assert name in page
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img src=x" not in page and "<svg onload" not in page and "<b>bold" not in page
    assert page.count("<script>") == 1        # only the report's own script
    # a page's control characters (an ANSI sequence, NUL, BEL) are shown, not written raw
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", page)
    assert "bad \\x00\\x1b char" in page and "\\x1b[2J\\x07" in page


def test_html_references_existing_images_only(run):
    run_dir, summary = run
    page = write_html(summary, run_dir).read_text(encoding="utf-8")
    srcs = re.findall(r'<img[^>]* loading="lazy" src="([^"]+)"', page)
    assert len(srcs) == 2 * 5 + 1            # five steps with before/after, one evidence shot
    for src in srcs:
        assert not src.startswith(("/", "http", "data:")) and (run_dir / src).is_file()
    assert "artifacts/shop-checkout/attempt-1/failure.jpg" in srcs
    assert "does-not-exist.jpg" not in srcs and "before missing" in page
    # a step that acted shows its marked copy (the SVG) in place of the plain before shot
    assert '<img class="marked" loading="lazy" src="artifacts/Open-app/step-1-marked.svg"' in page
    assert "artifacts/Open-app/step-1-before.jpg" not in srcs
    (run_dir / "artifacts/Open-app/step-1-marked.svg").unlink()     # lost: the before again
    srcs = re.findall(r'<img[^>]* src="([^"]+)"', write_html(summary, run_dir).read_text())
    assert "artifacts/Open-app/step-1-before.jpg" in srcs and not any("marked" in s for s in srcs)
    assert not re.search(r'(src|href)="(https?:)?//', page)   # nothing from the network
    assert '<a href="results.json">' in page and '<a href="junit.xml">' in page


def test_html_groups_steps_under_tasks_and_sorts_worst_first(run):
    run_dir, summary = run
    page = write_html(summary, run_dir).read_text(encoding="utf-8")
    login = page[page.index("Login works"):]
    assert login.index("<h3>Open app") < login.index("Sign in") < login.index("<h3>Log in") \
        < login.index("Welcome")
    assert "2 steps" in login
    order = [page.index(f'<span class="name">{n}') for n in
             ["Long flow", "&lt;script&gt;", "Checkout total", "Search results", "Cart badge",
              "Needs a model", "Login works"]]
    assert order == sorted(order)
    opened = re.findall(r'<details class="case st-(\w+)"[^>]*?( open)?>', page)
    assert {st for st, is_open in opened if is_open} == {"failed", "error", "interrupted"}
    assert "attempt 1 error on browser-1: DeviceLost browser closed" in page
    assert "prompt tokens 1,200" in page and "<th>Tier" in page and "<td>xpath<td>" in page


def test_html_header_counts(run):
    run_dir, summary = run
    page = write_html(summary, run_dir).read_text(encoding="utf-8")
    for status, n in [("passed", 1), ("failed", 2), ("error", 1), ("skipped", 1), ("flaky", 1),
                      ("interrupted", 1)]:
        assert re.search(rf'<li class="count st-{status}"[^>]*><a href="#status={status}">'
                         rf'<b>{n}</b> {status}</a></li>', page)
    # (1 passed + 1 flaky) / 5 finished: the interrupted case neither passed nor failed, as
    # the Grafana dashboard and the alert rules count it (deploy/)
    assert 'id="pass-rate">40.0%<' in page and \
        'id="pass-rate-of">2 passed of 5 finished (1 flaky: passed after a retry)<' in page
    assert "r1" in page and "browser-1, browser-2, emulator-5554" in page and "1 m 16 s" in page
    assert "Run interrupted" in page


def _counted(statuses: list[str], interrupted: bool = True) -> RunSummary:
    cases = [CaseResult(run_id="r1", case_id=f"s/c{i}", name=f"C{i}", file=f"s/c{i}.yaml",
                        platform="web", device=None if st == "skipped" else "browser-1",
                        status=st) for i, st in enumerate(statuses)]
    summary = RunSummary(run_id="r1", started="2026-01-01T02:00:00+00:00", cases=cases,
                         interrupted=interrupted)
    summary.recount()
    return summary


@pytest.mark.parametrize("statuses, rate, of", [
    (["passed", "passed", "skipped", "skipped", "interrupted"], "100.0%", "2 passed of 2"),
    (["passed", "failed", "interrupted"], "50.0%", "1 passed of 2"),
    (["flaky", "error", "passed", "failed"], "50.0%",
     "2 passed of 4 finished (1 flaky: passed after a retry)"),
    (["skipped", "interrupted"], "—", "0 passed of 0"),
])
def test_the_pass_rate_counts_the_cases_that_finished_as_the_dashboard_does(statuses, rate, of):
    """(passed + flaky) / (passed + flaky + failed + error), as deploy/grafana/farm.json and
    the alert rules divide: an interrupted case did not finish, it neither passed nor failed.
    The header says what the rate is out of ("1 of 3 finished" read as cases left unfinished)."""
    page = render_html(_counted(statuses))
    assert f'id="pass-rate">{rate}<' in page
    assert f'id="pass-rate-of">{of}<' in page or f'id="pass-rate-of">{of} finished<' in page
    assert "skipped and interrupted left out" in page


def test_a_case_that_never_started_shows_no_start_time(tmp_path):
    """An interrupted run's cases that never reached a device carry the time they were
    given up in ``started``; the report does not say they started then."""
    summary = _counted(["passed", "interrupted", "skipped"])
    for case in summary.cases:
        case.started = "2026-01-01T02:00:05+00:00"
    summary.cases[2].reason = "not run: the run was interrupted"
    page = render_html(summary)
    facts = re.findall(r'<p class="facts"><span>id <code>(s/c\d)</code></span>(.*?)</p>', page)
    started = {case_id for case_id, rest in facts if "started 2026-01-01" in rest}
    assert started == {"s/c0", "s/c1"}


def test_html_500_cases_stays_small():
    page = render_html(five_hundred_cases()).encode()
    assert len(page) < 5_000_000 / 2, len(page)
    assert b"base64" not in page
    assert page.count(b"<details") == 500


def test_format_duration():
    assert [format_duration(s) for s in (0.25, 12.34, 245, 3725)] == [
        "250 ms", "12.3 s", "4 m 05 s", "1 h 02 m"]


def test_quarantined_devices_are_named_in_the_header(tmp_path):
    from farm.report.html import render_html
    from farm.results import RunSummary
    summary = RunSummary(run_id="r", started="2026-01-01T00:00:00", quarantined=["emulator-5554"])
    summary.recount()
    html = render_html(summary, tmp_path)
    assert "Quarantined during the run" in html and "emulator-5554" in html


def test_the_header_says_what_each_device_is_alike_devices_together(tmp_path):
    shell = "Chromium 156.0.8078.114 (chromium-headless-shell)"
    summary = RunSummary(run_id="r", started="2026-01-01T00:00:00",
                         devices=["browser-1", "browser-2", "emulator-5554", "plugin-1"],
                         device_info={"browser-1": shell, "browser-2": shell,
                                      "emulator-5554": "Pixel 7, Android 14 (API 34)"},
                         cases=[CaseResult(run_id="r", case_id="a", name="a", file="a.yaml",
                                           platform="web", device="browser-2",
                                           device_info=shell, status="passed")])
    summary.recount()
    html = render_html(summary, tmp_path)
    header = re.search(r"<dt>Devices</dt><dd>([^<]*)</dd>", html).group(1)
    assert header == ("browser-1, browser-2: " + shell
                      + "\nemulator-5554: Pixel 7, Android 14 (API 34)\nplugin-1")
    assert f'<span title="{shell}">browser-2</span>' in html     # the case's device chip
    # searchable by its name, not by its version's numbers (which matched every case)
    assert re.search(r'data-q="[^"]*chromium[^"]*"', html) and "8078" not in \
        "".join(re.findall(r'data-q="([^"]*)"', html))


def test_model_spend_is_shown_per_step_and_per_case(tmp_path):
    from farm.report.html import render_html
    from farm.results import CaseResult, RunSummary, StepRecord
    usage = {"prompt_tokens": 1200, "completion_tokens": 80, "cost_usd": 0.0031,
             "cost_unknown": False, "latency_s": 2.5, "calls": 3, "retries": 1}
    case = CaseResult(run_id="r", case_id="s/ai", name="ai case", file="ai.yaml",
                      platform="web", status="passed", tokens={"prompt": 1200,
                                                               "completion": 80},
                      usage=usage, steps=[StepRecord(task="t", index=1, kind="ai",
                                                     label='ai "buy"', usage=usage)])
    summary = RunSummary(run_id="r", started="2026-01-01T00:00:00", cases=[case])
    summary.recount()
    html = render_html(summary, tmp_path)
    assert "model: 3 call(s), 1 retried, 1,200 + 80 tokens, $0.0031, 2.5s" in html
    assert "1,280 tokens" in html and "$0.0031" in html


def test_a_retried_case_s_row_shows_what_every_attempt_spent(tmp_path):
    """The case's row showed the last attempt's tokens and cost, where the header, junit.xml
    and the console count every attempt (each was paid for): two attempts of 1,000 tokens
    and $0.01 read "1,000 tokens, $0.0100" beside a header of 2,000 and $0.02."""
    usage = {"prompt_tokens": 900, "completion_tokens": 100, "cost_usd": 0.01,
             "cost_unknown": False, "latency_s": 1.0, "calls": 1, "retries": 0}
    first = CaseResult(run_id="r", case_id="s/ai", name="ai case", file="ai.yaml",
                       platform="web", status="failed", attempt=1, usage=usage,
                       tokens={"prompt": 900, "completion": 100})
    second = first.model_copy(update={"status": "passed", "attempt": 2, "previous": [first]})
    summary = RunSummary(run_id="r", started="2026-01-01T00:00:00", cases=[second])
    summary.recount()
    html = render_html(summary, tmp_path)
    assert "<span>2,000 tokens</span><span>$0.0200 (2 attempts)</span>" in html
    # and its facts by kind too (they said the last attempt's 900 + 100 under 2,000 tokens)
    assert "<span>completion tokens 200</span><span>prompt tokens 1,800</span>" in html


def test_an_ai_step_lists_what_the_agent_did(tmp_path):
    from farm.report.html import render_html
    from farm.results import CaseResult, RunSummary, StepRecord
    out = {"rounds": 3, "message": "added <b>", "steps": ['Tap "Sign in" at [1, 2, 3, 4]',
                                                          "Input <script>"]}
    case = CaseResult(run_id="r", case_id="s/ai", name="ai", file="ai.yaml", platform="web",
                      status="passed", steps=[StepRecord(task="t", index=1, kind="ai",
                                                         label="ai", output=out)])
    summary = RunSummary(run_id="r", started="2026-01-01T00:00:00", cases=[case])
    summary.recount()
    html = render_html(summary, tmp_path)
    assert "3 round(s) → added &lt;b&gt;" in html
    assert "<li>Tap &quot;Sign in&quot; at [1, 2, 3, 4]</li>" in html
    assert "<li>Input &lt;script&gt;</li>" in html and "Input <script>" not in html


def test_artifact_folders_never_collide_and_stay_stable(tmp_path):
    """Colliding names used to share screenshots, so a report showed another case's evidence."""
    from farm.results import ArtifactStore
    ids = ["s/a b", "s/a-b", "sub/x", "sub-x", "s/登录", "s/注册", "s/" + "n" * 90 + "1",
           "s/" + "n" * 90 + "2"]
    store = ArtifactStore(tmp_path)
    paths = {cid: store.save_screenshot(cid, 1, "001-start", _png()) for cid in ids}
    store.flush()
    folders = {p.split("/")[1] for p in paths.values()}
    assert len(folders) == len(ids)
    assert all((tmp_path / p).is_file() for p in paths.values())
    again = ArtifactStore(tmp_path / "next-run")
    assert again.save_screenshot("s/a b", 1, "001-start", _png()) == paths["s/a b"]
    again.flush()


def _png() -> bytes:
    import io
    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(buf, "PNG")
    return buf.getvalue()


# -- allure --------------------------------------------------------------------------------------

def test_allure_results_follow_allure_s_model(run, tmp_path):
    """Every result file validates against allure's result model (tests/schemas); steps carry
    their screenshots; labels name device and platform; flaky and known failures are flagged;
    earlier attempts are results of their own with the same historyId (Allure's retries)."""
    import json

    import jsonschema

    from farm.report.allure import write_allure
    run_dir, summary = run
    summary.cases[1].since_last = "still failing"
    out = write_allure(summary, run_dir, tmp_path / "allure")
    schema = json.loads((Path(__file__).parents[1] / "schemas" /
                         "allure-result.schema.json").read_text())
    results = [json.loads(p.read_text()) for p in out.glob("*-result.json")]
    for result in results:
        jsonschema.validate(result, schema)
    assert len(results) == len(summary.cases) + sum(len(c.previous) for c in summary.cases)
    by_name = {r["fullName"]: r for r in results if r["status"] != "broken"
               or r["fullName"] != "shop/search"}
    login = by_name["demo/login"]
    labels = {(label["name"], label["value"]) for label in login["labels"]}
    assert {("device", "browser-1"), ("platform", "web"), ("suite", "demo")} <= labels
    assert [s["status"] for s in login["steps"]] == ["passed"] * 3
    marked, plain = (s["attachments"][0] for s in login["steps"][:2])
    assert marked["type"] == "image/svg+xml" and marked["source"].endswith(".svg")
    assert (out / marked["source"]).read_bytes().startswith(b"<svg ")   # shown as an image
    assert plain["type"] == "image/jpeg" and (out / plain["source"]).is_file()
    checkout = by_name["shop/checkout"]
    assert checkout["status"] == "failed" and checkout["statusDetails"]["known"] is True
    assert (out / checkout["attachments"][0]["source"]).is_file()
    cart = [r for r in results if r["fullName"] == "demo/cart"]
    assert sorted(r["status"] for r in cart) == ["failed", "passed"]
    assert len({r["historyId"] for r in cart}) == 1
    assert next(r for r in cart if r["status"] == "passed")["statusDetails"]["flaky"] is True
    search = [r for r in results if r["fullName"] == "shop/search"]
    assert {r["status"] for r in search} == {"broken"}


def test_timeline_data_deselected_and_totals(run):
    """One lane per device with a bar per attempt (earlier attempts marked retried), a
    quarantined device flagged; named data, deselected cases and model totals shown."""
    from farm.results import DeselectedCase
    from farm.usage import Usage
    run_dir, summary = run
    for i, case in enumerate(summary.cases):
        case.started = f"2024-05-01T10:00:{i * 5:02d}.000+00:00"
        for p in case.previous:
            p.started = f"2024-05-01T10:00:{i * 5:02d}.000+00:00"
    summary.cases[0].data = {"total": "$42.00"}
    summary.cases[0].usage = Usage(prompt_tokens=1200, completion_tokens=80, cost_usd=0.5,
                                   calls=2, latency_s=3.5)
    summary.quarantined = ["emulator-5554"]
    summary.device_info = {"emulator-5554": "Pixel 7, Android 14 (API 34)"}
    summary.deselected = [DeselectedCase(case_id="demo/phone", name="On a phone",
                                         file="suites/demo/phone.yaml", platform="android",
                                         reason="no android device in --devices")]
    html = render_html(summary, run_dir)
    lanes = re.findall(r'<div class="lane" data-device="([^"]+)">', html)
    assert lanes == sorted({"browser-1", "browser-2", "emulator-5554"})
    assert html.count('class="bar st-') == 8          # 6 attempts on devices + 2 earlier ones
    assert html.count(" retried\"") == 2 and ">quarantined</span>" in html
    # a lane's device says what it is on hover
    assert '<span class="dev" title="Pixel 7, Android 14 (API 34)">emulator-5554</span>' in html
    assert "<code>total</code>" in html and "$42.00" in html
    assert "On a phone" in html and "1 (listed below, not counted)" in html
    assert "$0.5000" in html and "Model time" in html


def test_the_header_counts_the_model_spend_of_every_attempt(run):
    """A case retried after a model error paid for both attempts: the header says so."""
    from farm.usage import Usage
    run_dir, summary = run
    cart = next(c for c in summary.cases if c.case_id == "demo/cart")
    cart.previous[0].tokens = {"prompt": 2666, "completion": 22}
    cart.previous[0].usage = Usage(prompt_tokens=2666, completion_tokens=22, cost_usd=0.25,
                                   calls=1, latency_s=1.5)
    cart.tokens = {"prompt": 2666, "completion": 22}
    cart.usage = Usage(prompt_tokens=2666, completion_tokens=22, cost_usd=0.25, calls=1,
                       latency_s=1.5)
    html = render_html(summary, run_dir)
    # demo/login's 1200 + 80, and both of demo/cart's attempts
    assert "completion 124 · prompt 6,532" in html and "$0.5000" in html


def test_a_megabyte_error_is_shown_cut_where_results_json_keeps_it_whole(run):
    """A page's script that throws its data: its error is the step's, the case's and its
    search text; shown whole, one such case made a 12 MB report. The cut says where the rest
    is, and the start is shown as it was."""
    run_dir, summary = run
    checkout = next(c for c in summary.cases if c.case_id == "shop/checkout")
    message = "boom " + "y" * 1_000_000
    checkout.error = CaseError(kind="StepFailed", message=message, step=2)
    checkout.steps[1].error = message
    html = render_html(summary, run_dir)
    assert len(html) < 100_000
    # the case's error and its step's, each shown and in the search text
    assert html.count("boom yyy") == 5      # (and the top's Failures list: cut at 200)
    assert html.count(f"… ({len(message) - 10_000:,} more characters in results.json)") == 4


def test_a_run_in_which_no_case_ran_says_so_not_that_a_filter_hid_them(tmp_path):
    """-k that matched nothing (exit 5): the report's list said "No cases match the filter."
    though no filter was set."""
    from farm.results import DeselectedCase
    summary = RunSummary(run_id="r", started="2026-01-01T00:00:00", deselected=[
        DeselectedCase(case_id="s/a", name="a", file="s/a.yaml", platform="web",
                       reason="-k zzz")])
    summary.recount()
    html = render_html(summary, tmp_path)
    assert '<p id="empty" class="empty">No case ran: 1 deselected (listed below).</p>' in html
    assert "match the filter" not in html
    one = make_summary(tmp_path)
    assert '<p id="empty" class="empty" hidden>No cases match the filter.</p>' in \
        render_html(one, tmp_path)
