"""A failed step says what the page's server answered when that was an HTTP error: the device's
optional ``failure_note()`` (farm.runner), which the browser reads from the page's navigation
entry (farm.devices.web.failures). Fake devices here; tests/integration/test_web_http_status.py
runs it on Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.web.failures import http_status_note, page_status_note, requests_note
from farm.errors import StepFailed
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

NOT_FOUND = "the page answered 404 Not Found: http://127.0.0.1:8000/login"
PAGE = UITree(source="dom", page_text="Not here", nodes=[
    UINode(id=0, role="h1", text="Not here", rect=Rect(x=10, y=10, width=200, height=30))])


class NotingDevice(FakeDevice):
    """A fake device with a note on its page, counting how often it was asked."""

    def __init__(self, note: Any, **kw: Any) -> None:
        super().__init__(PAGE, **kw)
        self.note = note
        self.asked = 0

    def failure_note(self) -> str | None:
        self.asked += 1
        if isinstance(self.note, BaseException):
            raise self.note
        return self.note


def run(tmp_path: Path, device: FakeDevice, *steps: Step, env: dict[str, str] | None = None,
        secrets: frozenset[str] = frozenset()):
    case = Case(id="s/note", name="note", file=Path("/tmp/s/note.yaml"),
                suite_root=Path("/tmp/s"), platform="web", secrets=secrets,
                web=WebTarget(url="http://127.0.0.1:8000/login"),
                tasks=[Task(name="t", steps=list(steps))])
    svc = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                   env=env or {})
    return run_case(Job(case.id, "web", 1), case, device, svc)


def test_a_failed_step_says_the_page_answered_an_http_error(tmp_path):
    device = NotingDevice(NOT_FOUND)
    res = run(tmp_path, device, Step(kind="assertText", value="Sign in", line=6))
    said = f'expected text "Sign in" is not on screen ({NOT_FOUND})'
    assert res.status == "failed"
    assert res.steps[0].error == said and res.error.message == said
    assert device.asked == 1


def test_the_note_follows_the_first_line_of_a_failure_that_lists_what_it_saw(tmp_path):
    twice = UITree(source="dom", page_text="Sign in Sign in", nodes=[
        UINode(id=n, role="button", text="Sign in", clickable=True,
               rect=Rect(x=10, y=10 + 50 * n, width=100, height=30)) for n in (0, 1)])
    device = NotingDevice(NOT_FOUND)
    device.screens = {"main": twice}
    res = run(tmp_path, device, Step(kind="aiTap", target="Sign in", line=6))
    assert "seen:" in res.error.message         # the candidates it lists, on lines of their own
    first, *rest = res.error.message.splitlines()
    assert first.endswith(f"({NOT_FOUND})"), res.error.message
    assert NOT_FOUND not in "\n".join(rest)


@pytest.mark.parametrize("note", [None, "", RuntimeError("page gone")])
def test_without_a_note_the_failure_reads_as_before(tmp_path, note):
    res = run(tmp_path, NotingDevice(note), Step(kind="assertText", value="Sign in", line=6))
    assert res.error.message == 'expected text "Sign in" is not on screen'


def test_a_passing_case_never_asks_for_a_note(tmp_path):
    device = NotingDevice(NOT_FOUND)
    res = run(tmp_path, device, Step(kind="assertText", value="Not here", line=6))
    assert res.status == "passed" and device.asked == 0


def test_a_device_without_the_hook_fails_as_before(tmp_path):
    res = run(tmp_path, FakeDevice(PAGE), Step(kind="assertText", value="Sign in", line=6))
    assert res.error.message == 'expected text "Sign in" is not on screen'


def test_a_page_that_failed_to_open_says_its_status_too(tmp_path):
    """The start URL's failure (a test failure in the case's set-up) carries the note."""
    device = NotingDevice("the page answered 500 Internal Server Error: http://h/x",
                          errors={"start_session": StepFailed("cannot open http://h/x: the "
                                                              "server answered an HTTP error")})
    res = run(tmp_path, device, Step(kind="assertText", value="Sign in", line=6))
    assert res.status == "failed"
    assert res.error.message == ("cannot open http://h/x: the server answered an HTTP error "
                                 "(the page answered 500 Internal Server Error: http://h/x)")


def test_a_secret_in_the_noted_url_is_masked(tmp_path):
    device = NotingDevice("the page answered 403 Forbidden: http://h/admin?key=hunter22")
    res = run(tmp_path, device, Step(kind="assertText", value="Sign in", line=6),
              env={"ADMIN_KEY": "hunter22"}, secrets=frozenset({"ADMIN_KEY"}))
    assert "hunter22" not in res.error.message and "hunter22" not in res.steps[0].error
    assert "the page answered 403 Forbidden: http://h/admin?key=" in res.error.message


# ---- the browser's note ------------------------------------------------------------------------

@pytest.mark.parametrize("status, url, said", [
    (404, "http://127.0.0.1:8000/login", NOT_FOUND),
    (500, "http://h/boom", "the page answered 500 Internal Server Error: http://h/boom"),
    (401, "http://admin:s3cret@h/private?token=abc&x=1",
     "the page answered 401 Unauthorized: http://admin:***@h/private?token=***&x=1"),
    (599, "http://h/", "the page answered 599: http://h/"),
    (503, "", "the page answered 503 Service Unavailable"),
])
def test_an_http_error_is_noted_with_its_url_masked(status, url, said):
    assert http_status_note(status, url) == said


@pytest.mark.parametrize("status", [200, 204, 304, 399, 0, None, "404", True])
def test_any_other_answer_gets_no_note(status):
    assert http_status_note(status, "http://h/") is None


def test_the_page_read_is_best_effort():
    def script(answer: Any):
        def run(page: Any, js: str, arg: Any) -> Any:
            if isinstance(answer, BaseException):
                raise answer
            return answer
        return run

    assert page_status_note(None, script([404, "http://h/x", []])) == \
        "the page answered 404 Not Found: http://h/x"
    assert page_status_note(None, script([200, "http://h/x", []])) is None
    assert page_status_note(None, script([None, None, []])) is None   # about:blank, data:
    assert page_status_note(None, script(None)) is None
    assert page_status_note(None, script(RuntimeError("Target closed"))) is None



def test_the_page_s_failed_requests_are_said_the_last_one_first():
    """A step that fails after the page's API call failed says so: the backend's 500 is why
    the "Paid" text never came."""
    def script(page: Any, js: str, arg: Any) -> Any:
        return [200, "http://h/pay", [["GET", "/api/cart", 404], ["POST", "/api/pay", 500]]]
    assert page_status_note(None, script) == (
        "the page's request POST /api/pay answered 500 Internal Server Error; 1 more before")
    assert requests_note([["GET", "api.example.com/v1/me", 0]]) == \
        "the page's request GET api.example.com/v1/me failed"
    assert requests_note([["PUT", "/x", 599]]) == "the page's request PUT /x answered 599"
    assert requests_note([]) is None and requests_note("junk") is None
