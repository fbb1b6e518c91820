"""Blanks typed on Android are blanks: a value of spaces alone (" ", a search box's "show me
everything"), or a line of spaces between two line breaks, was taken for a line break and sent
as Enter: the form was submitted with an empty field, and a textarea got an extra line where
its blank line was."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

PACKAGE = "com.example.blanks"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Blanks</title></head><body>
<form onsubmit="event.preventDefault(); document.getElementById('said').textContent =
  'Submitted'"><input id="q" placeholder="Search"></form>
<textarea id="notes" placeholder="Notes" rows="6"></textarea>
<p id="said">Idle</p></body></html>"""


@pytest.fixture
def phone(tmp_path):
    from farm.appserver import AppServer
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AndroidTarget, AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="blanks", serve=app)])
        with AndroidSimulator(1, {PACKAGE: served.urls[app.resolve()] + "/"}) as sim:
            device = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
            device.open()
            try:
                device.start_session(AndroidTarget(launch=PACKAGE))
                yield device
            finally:
                device.close()


def field_value(device, element: str) -> str:
    """The text the phone's UI dump shows in the field of id ``element``."""
    return next(n.text for n in device.hierarchy().nodes
                if n.resource_id.split(":id/")[-1] == element)


def tap_on(device, hint: str) -> None:
    node = next(n for n in device.hierarchy().nodes if n.text == hint)
    device.tap(*node.rect.center)


def test_spaces_alone_are_typed_not_enter(phone):
    device = phone
    tap_on(device, "Search")
    device.type_text(" ")
    assert field_value(device, "q") == " "
    texts = [n.text for n in device.hierarchy().nodes]
    assert "Idle" in texts and "Submitted" not in texts      # the form was not sent


def test_a_blank_line_of_spaces_keeps_its_spaces(phone):
    device = phone
    tap_on(device, "Notes")
    device.type_text("one\n  \ntwo")
    assert field_value(device, "notes") == "one\n  \ntwo"
