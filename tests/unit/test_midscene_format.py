"""The Midscene-format corpus (tests/midscene/) as the loader reads it: each file under rejected/
is refused with the file:line:col and reason its first line names (`# expect: L:C phrase`);
the runnable files load with what their keys mean (the integration test runs them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.schedule import Job, pick_job
from farm.suite.loader import load_suites

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "midscene"
REJECTED = sorted((CORPUS / "rejected").iterdir())
ENV = {"CORPUS_OUT": "/tmp/out", "CORPUS_ECHO_URL": "http://127.0.0.1:1", "CORPUS_GATE": "/g"}


def _expectation(path: Path) -> tuple[int, int, str]:
    first = (path / "index.yaml" if path.is_dir() else path).read_text().splitlines()[0]
    where, phrase = first.removeprefix("# expect: ").split(" ", 1)
    line, col = where.split(":")
    return int(line), int(col), phrase


@pytest.mark.parametrize("path", REJECTED, ids=[p.name for p in REJECTED])
def test_a_key_farm_cannot_honour_is_refused_at_its_line(path: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)         # fileChooserAccept / image paths: the working directory
    line, col, phrase = _expectation(path)
    with pytest.raises(SuiteErrors) as info:
        load_suites([path], env=ENV)
    [err] = info.value.errors
    assert (err.line, err.column) == (line, col), str(err)
    assert phrase in err.message and str(err).startswith(err.file + f":{line}:{col}: ")


def _cases(*parts: str, **kw) -> dict:
    return {c.id: c for s in load_suites([CORPUS.joinpath(*parts)], env=ENV, **kw)
            for c in s.cases}


def test_every_target_form(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    warnings: list[str] = []
    web = _cases("web", warnings=warnings)
    page, browser = web["web/page_options"].web, web["web/browser_stays"].web
    assert (page.mode, page.same_tab, page.follow_new_pages) == ("page", True, False)
    assert (browser.mode, browser.same_tab, browser.follow_new_pages) == ("browser", False, False)
    mode = web["web/web_browser_mode"].web
    assert (mode.mode, mode.follow_new_pages, mode.accept_insecure_certs) == ("browser", True,
                                                                             True)
    old = web["web/target_deprecated"].web
    assert old.mode == "page" and old.same_tab is False
    assert warnings == ["tests/midscene/web/target_deprecated.yaml:2:1: `target:` is "
                        "deprecated in Midscene (read as `page:`); rename it to `page:` or "
                        "`browser:`"]
    assert page.cookies[0]["name"] == "session" and page.user_agent == "CorpusAgent/1.0"
    assert (page.network_idle_ms, page.network_idle_continue) == (5000, True)
    assert page.serve == (CORPUS / "site").resolve() and browser.chrome_args == [
        "--user-agent=CorpusChrome/2.0"]
    assert web["web/headers"].web.extra_http_headers == {"X-Corpus-Token": "corpus-token",
                                                         "Accept-Language": "fr"}
    assert web["web/page_options"].output == "${CORPUS_OUT}/page_options.json"
    mobile = _cases("mobile")
    assert mobile["mobile/android_steps"].android.ime_strategy == "always-yadb"
    assert mobile["mobile/ios_steps"].ios.auto_dismiss_keyboard is True


def test_step_options_and_object_forms(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    steps = {s.kind: s for s in _cases("web")["web/page_gestures"].steps}
    assert steps["aiTap"].target == "Choose a file"            # `locate: {prompt}` beside it
    assert steps["aiTap"].action_params()["fileChooserAccept"] == [
        str(CORPUS / "site" / "upload.txt")]
    assert steps["aiDragAndDrop"].action_params() == {
        "from": {"prompt": "Drag card", "deepLocate": False},
        "to": {"prompt": "Drop bin", "deepLocate": False}}
    assert steps["aiLongPress"].action_params()["duration"] == 900
    assert steps["aiSwipe"].action_params()["start"]["prompt"] == "Drop bin"
    assert steps["recordToReport"].value == "the same, by its new name"
    insight = _cases("model")["model/insight-steps"]        # agent.testId names the case
    assert insight.agent == {"testId": "insight-steps", "replanningCycleLimit": 5,
                             "aiActContext": "The corpus page is a test page; nothing on "
                                             "it needs a login.",
                             "cache": {"id": "corpus-insight", "strategy": "read-write"}}
    by_kind = {s.kind: s for s in insight.steps}
    assert by_kind["aiAssert"].options["domIncluded"] is True
    assert by_kind["aiAssert"].options["screenshotIncluded"] is False
    assert by_kind["aiBoolean"].value == "Does the page show the logo?"
    [logo] = by_kind["aiBoolean"].options["images"]
    assert logo["name"] == "logo" and logo["url"].startswith("data:image/png;base64,")
    assert by_kind["aiWaitFor"].options["checkIntervalMs"] == 200
    assert by_kind["ai"].options == {"deepThink": False, "deepLocate": True, "cacheable": False}


def test_a_batch_is_its_file_or_its_folder() -> None:
    batches: list = []
    by_folder = _cases("batch", batches=batches)
    by_file = _cases("batch", "index.yaml")
    assert sorted(by_folder) == sorted(by_file) == [
        "batch/flows/fails", "batch/flows/plain", "batch/flows/wait_a", "batch/flows/wait_b"]
    [batch] = batches
    assert (batch.concurrent, batch.continue_on_error, batch.retry) == (2, True, 0)
    # shared web: settings win over each file's own (plain.yaml says viewportWidth: 400)
    assert by_folder["batch/flows/plain"].web.viewport_width == 1000
    assert by_folder["batch/flows/plain"].web.viewport_height == 640
    assert all(c.batch == "tests/midscene/batch/index.yaml" for c in by_folder.values())


def test_a_pinned_case_waits_for_its_device(tmp_path) -> None:
    """android.deviceId / ios.wdaHost:wdaPort pin a case: only that device takes it."""
    path = tmp_path / "pinned.yaml"
    path.write_text("android:\n  deviceId: emulator-5556\n  launch: a.b\ntasks:\n  - name: t\n"
                    "    flow:\n      - sleep: 1\n")
    [case] = [c for s in load_suites([path], env={}) for c in s.cases]
    assert case.pin == "emulator-5556"
    queue = [Job(case.id, "android", 5.0, pin=case.pin), Job("free", "android", 1.0)]
    assert pick_job(queue, "emulator-5554", "android", 1) == 1
    assert pick_job(queue, "emulator-5556", "android", 1) == 0
    path.write_text("ios:\n  wdaPort: 8101\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n")
    [case] = [c for s in load_suites([path], env={}) for c in s.cases]
    assert case.pin == "localhost:8101"
    queue = [Job(case.id, "ios", 5.0, pin=case.pin)]
    assert pick_job(queue, "ios-1", "ios", 0, aliases=("localhost:8100",)) is None
    assert pick_job(queue, "ios-2", "ios", 0, aliases=("localhost:8101",)) == 0


def test_reference_images_and_planning_strategies_load(monkeypatch, tmp_path) -> None:
    """{prompt, images} on aiTap (`locate:`), aiLocate and ai: the image is read relative to the
    YAML file (not the working directory) and carried as a data: URL; planningStrategy is kept
    for each aiAct spelling."""
    import base64
    monkeypatch.chdir(tmp_path)
    logo = "data:image/png;base64," + base64.b64encode(
        (CORPUS / "site" / "logo.png").read_bytes()).decode()
    model = _cases("model")
    tap, _, found, act, _, typed, _ = model["model/reference_images"].steps
    assert tap.target == "Logo" and tap.action_params()["locate"]["images"] == [
        {"name": "brand mark", "url": logo}]
    assert found.options["images"] == act.options["images"] == [
        {"name": "brand mark", "url": logo}]
    assert act.value.startswith("tap the button that shows the reference picture")
    assert typed.action_params() == {"value": "hello", "mode": "replace", "locate": {
        "prompt": "the box under the brand mark", "xpath": None, "deepLocate": False,
        "images": [{"name": "brand mark", "url": logo}]}}
    plans = [(s.kind, s.options.get("planningStrategy")) for s in model["model/planning"].steps
             if s.kind != "assertText"]
    assert plans == [("aiAct", "fast"), ("ai", "standard"), ("aiAction", "max")]


def test_an_image_too_big_or_only_in_the_working_directory(monkeypatch, tmp_path) -> None:
    """Over 5 MB: refused at its line. A path not beside the YAML file but under the working
    directory (Midscene reads it there) is taken from there."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "big.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * (5 << 20))
    (tmp_path / "pics" / "small.png").write_bytes((CORPUS / "site" / "logo.png").read_bytes())
    case = tmp_path / "cases" / "c.yaml"
    case.parent.mkdir()
    body = ("page:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n"
            "      - aiAssert:\n          prompt: the logo is shown\n          images:\n"
            "            - {name: logo, url: pics/%s}\n")
    case.write_text(body % "big.png")
    with pytest.raises(SuiteErrors) as info:
        load_suites([case], env={})
    [err] = info.value.errors
    assert (err.line, err.column) == (9, 33) and "over the 5242880 limit" in err.message
    case.write_text(body % "small.png")
    [loaded] = [c for s in load_suites([case], env={}) for c in s.cases]
    assert loaded.steps[0].options["images"][0]["url"].startswith("data:image/png;base64,")


def test_key_and_scroll_targets_take_the_locate_object(tmp_path) -> None:
    """aiKeyboardPress / aiScroll `locate: {prompt, images, deepLocate}`: the images go with the
    target (as aiTap's); the rest of the object is read as the step's options."""
    logo = (CORPUS / "site" / "logo.png").read_bytes()
    (tmp_path / "logo.png").write_bytes(logo)
    case = tmp_path / "c.yaml"
    case.write_text("page:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n"
                    "      - aiKeyboardPress: Enter\n        locate:\n          prompt: the box\n"
                    "          images: [{name: a, url: logo.png}]\n"
                    "      - aiScroll:\n        direction: up\n        locate:\n"
                    "          prompt: the list\n          deepLocate: true\n"
                    "          images: [{name: b, url: logo.png}]\n")
    [loaded] = [c for s in load_suites([case], env={}) for c in s.cases]
    key, scroll = (s.action_params() for s in loaded.steps)
    assert key["keyName"] == "Enter" and key["locate"]["prompt"] == "the box"
    assert [i["name"] for i in key["locate"]["images"]] == ["a"]
    assert scroll["direction"] == "up" and scroll["locate"]["deepLocate"] is True
    assert [i["name"] for i in scroll["locate"]["images"]] == ["b"]
