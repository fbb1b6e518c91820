"""An iOS team's findings on `farm sim ios`: a long scroll distance, a gently shaded page, an
alert a case before left, a WDA refusal's words (`farm.devices.ios`)."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from PIL import Image
from wda.exceptions import WDARequestError

from farm.devices.ios import IosDevice, blank_frame
from farm.errors import DeviceError
from farm.suite.model import IosTarget

W, H = 390, 844
PAGE = 3300          # a page's height (pt): a header, a 3000 pt shaded spacer, a last line


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def _gradient_at(offset: int) -> bytes:
    """The screen over a page whose 3000 pt spacer is shaded #fff to #eee, scrolled
    ``offset`` pt down (no text in sight)."""
    column = Image.new("L", (1, H))
    column.putdata([255 - (17 * (offset + y)) // PAGE for y in range(H)])
    return _png(column.resize((W, H)))


class _Page:
    """An iPhone showing a page that scrolls as a finger swipes it: its offset, the swipes
    made, its screenshots (the shaded spacer) and its source's element frames."""

    def __init__(self) -> None:
        self.offset, self.swipes = 0, []

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self.swipes.append((x1, y1, x2, y2))
        assert all(0 < v < H for v in (y1, y2)), "a swipe off the screen"
        self.offset = max(0, min(PAGE - H, self.offset + y1 - y2))


def _iphone(page: _Page) -> IosDevice:
    dev = IosDevice("i1", None, "http://127.0.0.1:1")
    dev._client, dev._session, dev._size = object(), object(), (W, H)
    dev.swipe = page.swipe
    dev.screenshot = lambda: _gradient_at(page.offset)
    dev._frames = lambda: [("0", str(-page.offset))]
    return dev


def test_a_long_distance_scrolls_that_far_in_several_swipes_ios50():
    page = _Page()
    dev = _iphone(page)
    assert dev.scroll(W // 2, H // 2, 0, 2000) is True
    assert page.offset == 2000                  # (one swipe cut at the screen's edge: 421)
    assert len(page.swipes) > 1 and dev.scrolled_px == 2000


def test_a_gently_shaded_page_that_moved_counts_as_moved_ios50():
    assert blank_frame(_gradient_at(0))         # (nothing in it a screen comparison sees move)
    page = _Page()
    dev = _iphone(page)
    assert dev.scroll(W // 2, H // 2, 0, 422) is True
    page.offset = PAGE - H                      # at the end: the next scroll moves nothing
    assert dev.scroll(W // 2, H // 2, 0, 422) is False


def test_a_scroll_to_the_bottom_is_half_a_screen_a_swipe_as_on_android_ios50():
    dev = IosDevice("i1", None, "http://127.0.0.1:1")
    assert (dev.end_scroll_screens, dev.scrolls_to_end) == (0.5, 30)


class _Alert:
    def __init__(self, log: list[str], up: bool = True) -> None:
        self.log, self.up = log, up

    @property
    def text(self) -> str:
        if not self.up:
            raise WDARequestError(404, {"error": "no such alert", "message": ""})
        return "Allow Shop to use your location?"

    def dismiss(self) -> None:
        self.log.append("dismiss")
        self.up = False


class _Session:
    def __init__(self, log: list[str], closes: bool = True) -> None:
        self.log, self.alert = log, _Alert(log)
        if not closes:
            self.alert.dismiss = lambda: None
        self._session_http = SimpleNamespace(get=lambda path: SimpleNamespace(value=["OK"]))

    def open_url(self, url: str) -> None:
        self.log.append(f"open {url}" + (" under an alert" if self.alert.up else ""))


def _starting(monkeypatch: pytest.MonkeyPatch, closes: bool = True) -> tuple[IosDevice, list]:
    log: list[str] = []
    dev = IosDevice("i1", None, "http://127.0.0.1:1")
    dev._client, dev._size = object(), (W, H)
    monkeypatch.setattr(dev, "_new_session", lambda *a, **kw: setattr(
        dev, "_session", _Session(log, closes)))
    monkeypatch.setattr(dev, "_upright", lambda: None)
    return dev, log


def test_a_case_opening_a_url_starts_without_the_alert_a_case_before_left_ios50(monkeypatch):
    dev, log = _starting(monkeypatch)
    dev.start_session(IosTarget(launch="shop://product/blue-mug"))
    assert log == ["dismiss", "open shop://product/blue-mug"]
    assert dev._alert_shown() is None       # (a failure of the case names no alert)


def test_a_launch_that_failed_under_an_alert_gives_no_advice_of_a_step_first_ios50(
        monkeypatch):
    dev, _ = _starting(monkeypatch, closes=False)
    dev.start_session(IosTarget(launch="shop://product/blue-mug"))
    dev._in_case = False        # (as when the case's launch failed: start_session raised)
    said = dev.error_page()
    assert said == ('an alert is in front of the app: "Allow Shop to use your location?" '
                    "(buttons: OK)")
    dev._in_case = True         # (a step's failure: a step can answer it)
    assert dev.error_page().endswith("answer it with a step first (aiTap: OK)")


def test_a_wda_refusal_is_said_in_words_not_as_an_exception_repr_ios50():
    dev = IosDevice("i1", None, "http://127.0.0.1:1")
    dev._client, dev._session = object(), object()

    def refuse() -> None:
        raise WDARequestError(110, {"error": "unknown error",
                                    "message": "Cannot take a screenshot"})
    with pytest.raises(DeviceError) as failed:
        dev._call(refuse, "screenshot")
    assert str(failed.value) == ("screenshot failed on i1: unknown error (Cannot take a "
                                 "screenshot)")
