"""LocalExecutor + run_case over fake devices: retries, quarantine, flaky, timeouts, secrets."""

import threading
from pathlib import Path


from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import HANG, FakeDevice
from farm.errors import DeviceLost
from farm.executors.base import NullEvents
from farm.executors.local import LocalExecutor
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.attempts import RetryPolicy
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

SCREEN = UITree(source="dom", page_text="Welcome back, demo", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30)),
    UINode(id=1, role="input:password", label="Password", editable=True, clickable=True,
           rect=Rect(x=10, y=60, width=200, height=30)),
])


def make_case(cid, steps, timeout=30.0, secrets=(), vars=None):
    return Case(id=f"s/{cid}", name=cid, file=Path(f"/tmp/{cid}.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=steps)], timeout=timeout,
                secrets=list(secrets), vars=vars or {})


def services(tmp_path):
    return Services(settings=Settings(watchdog_grace_seconds=0.3), artifacts=ArtifactStore(
        tmp_path), run_id="r1", env={})


def run(devices, cases, tmp_path, policy=RetryPolicy()):
    ex = LocalExecutor(devices, {c.id: c for c in cases}, services(tmp_path), policy)
    outcome = ex.run([Job(c.id, "web", 1.0) for c in cases])
    return {r.case_id: r for r in outcome.results}, outcome


def test_passing_case_records_steps_tiers_and_screenshots(tmp_path):
    case = make_case("ok", [Step(kind="aiTap", target="Sign in"),
                            Step(kind="assertText", value="welcome back")])
    svc = services(tmp_path)
    res = run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), svc)
    svc.artifacts.flush()
    assert res.status == "passed", res
    assert [s.tier for s in res.steps] == ["text", None]
    assert res.steps[0].before and res.steps[0].after
    assert (tmp_path / res.steps[0].after).read_bytes()[:2] == b"\xff\xd8"   # JPEG


def test_failed_assertion_fails_case_and_skips_the_rest(tmp_path):
    case = make_case("bad", [Step(kind="assertText", value="Order placed", line=7),
                             Step(kind="aiTap", target="Sign in")])
    res = run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), services(tmp_path))
    assert res.status == "failed" and res.error.step == 1
    assert "Order placed" in res.error.message
    assert [s.status for s in res.steps] == ["failed", "skipped"]
    assert res.screenshot


def test_secret_never_reaches_results(tmp_path):
    case = make_case("sec", [Step(kind="aiInput", target="Password", value="${PW}"),
                             Step(kind="javascript", value="leak")],
                     secrets=["PW"], vars={"PW": "hunter22"})
    dev = FakeDevice(SCREEN, scripts={"leak": lambda d: "value is hunter22"})
    res = run_case(Job(case.id, "web", 1), case, dev, services(tmp_path))
    assert ("type_text", "hunter22") in dev.actions           # the device gets the value
    dumped = res.model_dump_json()
    assert "hunter22" not in dumped and "${PW}" in dumped and "***" in dumped


def test_model_step_skips_the_case(tmp_path):
    case = make_case("ai", [Step(kind="ai", value="buy a mug")])
    res = run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), services(tmp_path))
    assert res.status == "skipped" and "needs a model (set FARM_MODEL)" in res.reason


def test_timeout_is_an_error_with_a_screenshot(tmp_path):
    case = make_case("hang", [Step(kind="javascript", value="hang")], timeout=0.5)
    res = run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN, scripts={"hang": HANG}),
                   services(tmp_path))
    assert res.status == "error" and res.error.kind == "CaseTimeout"
    assert res.screenshot


def _optional_then_check(cid, optional: Step, timeout=30.0) -> Case:
    """``optional`` alone in a continueOnError task, then a task that checks the screen."""
    case = make_case(cid, [], timeout=timeout)
    case.tasks = [Task(name="optional", steps=[optional], continue_on_error=True),
                  Task(name="check", steps=[Step(kind="assertText", value="Welcome")])]
    return case


def test_a_javascript_steps_own_timeout_fails_the_step_as_wait_for_text_does(tmp_path):
    js = _optional_then_check("js", Step(kind="javascript", value="hang", timeout_ms=100))
    wft = _optional_then_check("wft", Step(kind="waitForText", value="Never", timeout_ms=100))
    ran = {c.id: run_case(Job(c.id, "web", 1), c, FakeDevice(SCREEN, scripts={"hang": HANG}),
                          services(tmp_path / c.name)) for c in (js, wft)}
    res = ran["s/js"]
    assert res.status == ran["s/wft"].status == "failed"        # a failed check, no timeout
    assert res.error.step == ran["s/wft"].error.step == 1 and res.error.kind != "CaseTimeout"
    assert [s.status for s in res.steps] == [s.status for s in ran["s/wft"].steps] \
        == ["failed", "passed"]                       # continueOnError: the check still ran
    assert res.steps[0].error == "javascript did not finish within 0.1s"


def test_a_javascript_step_past_the_case_timeout_is_a_case_timeout(tmp_path):
    case = _optional_then_check("slow", Step(kind="javascript", value="hang", timeout_ms=60_000),
                                timeout=2.0)     # (0.5 s: a busy machine timed it out before
    res = run_case(Job(case.id, "web", 1), case,   # the step began, "running" something else)
                   FakeDevice(SCREEN, scripts={"hang": HANG}), services(tmp_path))
    assert res.status == "error" and res.error.kind == "CaseTimeout"
    assert res.error.message == "case timed out after 2s running javascript"


class _Watched(threading.Event):
    """The run's stop event, saying when a step began to wait on it."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Event()

    def wait(self, timeout=None) -> bool:
        self.waiting.set()
        return super().wait(timeout)


def test_a_sleep_ends_when_the_run_is_stopped(tmp_path):
    """Ctrl-C or SIGTERM during `sleep: 20000`: the case ends interrupted at once (a CI
    runner's grace period is short), not 20 s later as a pass."""
    svc = services(tmp_path)
    svc.cancel = _Watched()
    # (the wait's limit only ends the test when the sleep never waits on the stop event)
    stopper = threading.Thread(target=lambda: svc.cancel.waiting.wait(60) and svc.cancel.set())
    stopper.start()
    case = make_case("nap", [Step(kind="sleep", value="20000"),
                             Step(kind="assertText", value="Welcome back")], timeout=60)
    res = run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), svc)
    svc.cancel.waiting.set()
    stopper.join()
    assert res.status == "interrupted"
    assert [s.status for s in res.steps] == ["interrupted", "skipped"]


def test_a_timeout_says_its_limit_and_what_the_case_was_doing(tmp_path):
    """Not "case timed out during sleep 20000 ms", which reads as if the 20 s sleep ran out."""
    # the timeout leaves room for the case start on a loaded machine: the sleep must begin
    # before the deadline, or the step-start check (not the sleep) ends the case
    case = make_case("nap", [Step(kind="sleep", value="20000"),
                             Step(kind="assertText", value="Welcome back")], timeout=3)
    res = run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), services(tmp_path))
    assert res.error.message == "case timed out after 3s during sleep 20000 ms"
    assert res.error.step == 1               # the step it was in, not the last one listed
    # the step it never reached is listed, not run: the case keeps its shape
    assert [(s.kind, s.status) for s in res.steps] == [("sleep", "error"),
                                                       ("assertText", "skipped")]


class CrashingDevice(FakeDevice):
    """Loses the browser on its first tap and says so (``crashed``)."""

    def __init__(self, *args, **kw):
        super().__init__(*args, errors={"tap": DeviceLost("browser crashed")}, **kw)
        self.crashed = threading.Event()

    def tap(self, x, y):
        self.crashed.set()
        super().tap(x, y)


class LateDevice(FakeDevice):
    """Starts only once ``after`` is set: whatever it runs was left by another device."""

    def __init__(self, *args, after, **kw):
        super().__init__(*args, **kw)
        self.after = after

    def open(self):
        assert self.after.wait(60), "the other device never got as far"
        super().open()


def test_infra_error_is_retried_once_on_another_device(tmp_path):
    boom = CrashingDevice(SCREEN, name="d1")
    good = LateDevice(SCREEN, name="d2", after=boom.crashed)   # d1 takes the case first
    case = make_case("c", [Step(kind="aiTap", target="Sign in")])
    results, _ = run([boom, good], [case], tmp_path)
    res = results["s/c"]
    assert res.status == "passed" and res.attempt == 2 and res.device == "d2"
    assert [(p.device, p.status, p.error.kind) for p in res.previous] == [
        ("d1", "error", "DeviceLost")]


def test_each_attempt_says_what_its_device_is_and_the_run_lists_every_device(tmp_path):
    from farm.results import devices_of
    boom = CrashingDevice(SCREEN, name="d1")
    good = LateDevice(SCREEN, name="d2", after=boom.crashed)
    boom.about, good.about = "Pixel 7, Android 14 (API 34)", "Pixel 8, Android 15 (API 35)"
    results, _ = run([boom, good], [make_case("c", [Step(kind="aiTap", target="Sign in")])],
                     tmp_path)
    res = results["s/c"]
    assert (res.device, res.device_info) == ("d2", "Pixel 8, Android 15 (API 35)")
    assert [(p.device, p.device_info) for p in res.previous] == [
        ("d1", "Pixel 7, Android 14 (API 34)")]
    # the run's devices and what each is: every attempt's (d1 ran the first)
    assert devices_of([res]) == (["d1", "d2"], {"d1": "Pixel 7, Android 14 (API 34)",
                                          "d2": "Pixel 8, Android 15 (API 35)"})


def test_device_with_repeated_infra_errors_is_quarantined(tmp_path):
    boom = FakeDevice(SCREEN, name="d1", errors={"tap": DeviceLost("gone")})
    cases = [make_case(f"c{i}", [Step(kind="aiTap", target="Sign in")]) for i in range(4)]
    results, outcome = run([boom], cases, tmp_path, RetryPolicy(infra_retries=0))
    assert outcome.quarantined == ["d1"]
    assert all(r.status == "error" for r in results.values())
    assert len(results) == 4   # the ones never run end as errors, not silently lost
    # ... naming the device and what became of it (the reason alone said neither)
    assert results["s/c3"].error.message == ("no usable web device left (d1 is quarantined: "
                                             "3 infrastructure errors in a row)")


def test_a_device_that_dies_is_named_in_the_run_with_why(tmp_path):
    """A device that could not start (a WDA that stopped answering) was only in farm.log: the
    run's outcome, results.json, the summary line and the report now name it."""
    from farm.report.html import render_html
    from farm.results import RunSummary
    from farm.run_console import summary_line

    class Unreachable(FakeDevice):
        def open(self):
            raise DeviceLost("iphone-2 lost (status): [Errno 111] Connection refused")
    cases = [make_case(f"c{i}", [Step(kind="aiTap", target="Sign in")]) for i in range(2)]
    results, outcome = run([FakeDevice(SCREEN, name="d1"), Unreachable(SCREEN, name="d2")],
                           cases, tmp_path)
    assert all(r.status == "passed" for r in results.values())
    assert outcome.lost == {"d2": "could not start: iphone-2 lost (status): [Errno 111] "
                                  "Connection refused"}
    summary = RunSummary(run_id="r", started="", cases=list(results.values()),
                         lost=outcome.lost)
    summary.recount()
    assert summary_line(summary).startswith("farm: 2 passed in ")
    assert "; lost: d2 (run " in summary_line(summary)
    assert ("Lost during the run: d2 (could not start: iphone-2 lost (status): [Errno 111] "
            "Connection refused)") in render_html(summary, tmp_path)


def test_pass_after_failure_is_flaky(tmp_path):
    calls = {"n": 0}

    def flaky(dev):
        calls["n"] += 1
        if calls["n"] == 1:
            from farm.errors import StepFailed
            raise StepFailed("first time fails")
        return True
    case = make_case("f", [Step(kind="javascript", value="x")])
    told = []

    class Told(NullEvents):
        def case_finished(self, device, result, final):
            told.append((result.status, final, [p.status for p in result.previous]))
    ex = LocalExecutor([FakeDevice(SCREEN, scripts={"x": flaky})], {case.id: case},
                       services(tmp_path), RetryPolicy(test_retries=1))
    results = {r.case_id: r for r in ex.run([Job(case.id, "web", 1.0)], Told()).results}
    assert results["s/f"].status == "flaky"
    # the journal, the metrics and the progress lines are told the verdict, not the attempt
    assert told == [("failed", False, []), ("flaky", True, ["failed"])]


def test_interrupt_marks_inflight_interrupted(tmp_path):
    started = threading.Event()

    def hang(dev):               # the first case is running when the user presses Ctrl-C
        started.set()
        dev._killed.wait(60)
        raise DeviceLost("browser killed")
    dev = FakeDevice(SCREEN, scripts={"hang": hang})
    cases = [make_case("a", [Step(kind="aiTap", target="Sign in"),
                             Step(kind="javascript", value="hang")], timeout=60),
             make_case("b", [Step(kind="javascript", value="hang")], timeout=60)]
    ex = LocalExecutor([dev], {c.id: c for c in cases}, services(tmp_path), RetryPolicy())
    threading.Thread(target=lambda: started.wait(60) and ex.interrupt(), daemon=True).start()
    results = {r.case_id: r for r in ex.run([Job(c.id, "web", 1.0) for c in cases]).results}
    statuses = sorted(r.status for r in results.values())
    assert statuses == ["interrupted", "skipped"]
    # the case in flight keeps what it did before Ctrl-C: its steps, its start, its device
    cut = next(r for r in results.values() if r.status == "interrupted")
    assert [(s.index, s.status) for s in cut.steps] == [(1, "passed"), (2, "interrupted")]
    assert cut.device == dev.name and cut.duration > 0 and cut.steps[0].after
    assert cut.reason == "interrupted: the run was stopped"


def test_watchdog_kills_a_device_stuck_past_the_timeout(tmp_path):
    """A page busy-looping ignores in-page timeouts: only killing the device frees the slot."""

    def busy_loop(dev):          # ignores timeout_s, like `while (true) {}` in a page
        dev._killed.wait(30)
        raise DeviceLost("browser killed")
    dev = FakeDevice(SCREEN, scripts={"spin": busy_loop})
    # the timeout leaves room for the case start on a loaded machine: the step must begin
    # before the deadline, or the runner's own check (not the watchdog) ends the case
    case = make_case("spin", [Step(kind="javascript", value="spin")], timeout=3)
    results, _ = run([dev], [case], tmp_path, RetryPolicy(infra_retries=1))
    res = results["s/spin"]
    assert res.status == "error" and res.error.kind == "CaseTimeout"
    assert res.attempt == 1 and "stopped answering" in res.error.message


def test_step_records_what_the_device_showed(tmp_path):
    class BlankTreeDevice(FakeDevice):
        last_observation = None

        def hierarchy(self):
            self.last_observation = "empty-tree"
            return None
    case = make_case("blank", [Step(kind="aiTap", target="Sign in")])
    res = run_case(Job(case.id, "web", 1), case, BlankTreeDevice(SCREEN), services(tmp_path))
    assert res.status == "skipped"            # no tree, no model: only vision could find it
    assert res.steps[0].observation == "empty-tree"


def test_structured_step_output_keeps_its_shape_and_is_masked(tmp_path):
    case = make_case("q", [Step(kind="javascript", value="q")], secrets=["PW"],
                     vars={"PW": "hunter22"})
    dev = FakeDevice(SCREEN, scripts={"q": {"user": "demo", "notes": ["pw hunter22", 3]}})
    res = run_case(Job(case.id, "web", 1), case, dev, services(tmp_path))
    assert res.steps[0].output == {"user": "demo", "notes": ["pw ***", 3]}


def test_a_lone_surrogate_in_an_error_never_costs_a_result(tmp_path):
    """Page text cut mid-emoji used to make the result unwritable: the device thread died, the
    case vanished and the run ended green. Every case still ends with exactly one result."""
    from farm.errors import StepFailed
    from farm.results import RunSummary, write_json
    dev = FakeDevice(SCREEN, scripts={"cut": StepFailed("page says \ud83d and stops")})
    cases = [make_case("a", [Step(kind="javascript", value="cut")]),
             make_case("b", [Step(kind="assertText", value="welcome back")])]
    results, _ = run([dev], cases, tmp_path)
    assert {k: r.status for k, r in results.items()} == {"s/a": "failed", "s/b": "passed"}
    assert "\ufffd" in results["s/a"].error.message
    write_json(tmp_path / "results.json", RunSummary(run_id="r1", started="", cases=list(
        results.values())))


from tests.unit.test_pins_s43q import adb_server  # noqa: E402,F401


class BrokenJournal:
    """Events whose case_finished always fails (a full disk, a broken progress view)."""

    def __init__(self):
        from farm.executors.base import NullEvents
        self.inner = NullEvents()

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def case_finished(self, device, result, final):
        raise OSError("No space left on device")


def test_results_survive_events_that_fail(tmp_path):
    cases = [make_case(f"c{i}", [Step(kind="assertText", value="welcome back")])
             for i in range(3)]
    ex = LocalExecutor([FakeDevice(SCREEN)], {c.id: c for c in cases}, services(tmp_path),
                       RetryPolicy())
    outcome = ex.run([Job(c.id, "web", 1.0) for c in cases], BrokenJournal())
    assert sorted(r.status for r in outcome.results) == ["passed"] * 3


def test_a_case_pinned_to_a_phone_the_run_did_not_take_says_which_it_took(tmp_path,
                                                                         adb_server):
    """deviceId names an attached phone that --devices android:1 did not take: a configuration
    mistake, said as one (the devices taken, how to take more), not as a lost device."""
    from farm.suite.model import AndroidTarget
    case = Case(id="s/pin", name="pin", file=Path("/tmp/pin.yaml"), suite_root=Path("/tmp"),
                platform="android", android=AndroidTarget(device_id="emulator-5556"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    phone = FakeDevice(SCREEN, name="emulator-5554", platform="android")
    ex = LocalExecutor([phone], {case.id: case}, services(tmp_path), RetryPolicy())
    [result] = ex.run([Job(case.id, "android", 1.0, pin=case.pin)]).results
    assert result.status == "error" and result.error.kind == "ConfigError"
    assert result.error.message == (
        "the case is pinned to emulator-5556 (Midscene deviceId / wdaHost:wdaPort), which this "
        "run did not take: its android devices are emulator-5554; give --devices android:N for "
        "more, or choose them with ANDROID_SERIAL")
