"""A fileChooserAccept tap whose page opens no chooser fails naming the wait it made, and,
when that was farm's whole wait, why it was longer than Chromium's 5 s: before, the message
said a page can open one "only within 5 s" while farm waited 10, which read as a slip."""

from __future__ import annotations

import pytest

from farm.devices.web import chooser
from farm.errors import StepFailed


class Page:
    """A page whose chooser watch intercepts (no DevTools session of the tap's own)."""

    def __init__(self) -> None:
        self.clicks: list[tuple[int, int]] = []
        self.mouse = self
        setattr(self, chooser._ATTR, chooser.ChooserWatch(lambda said: None))
        getattr(self, chooser._ATTR).session = object()

    def click(self, x: int, y: int) -> None:
        self.clicks.append((x, y))


@pytest.fixture
def waited(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    out: list[float] = []
    monkeypatch.setattr(chooser, "_wait_for", lambda page, future, opened, t: out.append(t))
    return out


def test_the_whole_wait_is_named_with_why_it_is_longer_than_chromiums(waited) -> None:
    with pytest.raises(StepFailed) as failed:
        chooser.tap_choosing_files(Page(), 10, 20, ["/tmp/a.txt"], 30.0)
    assert waited == [chooser.CHOOSER_WAIT_S] == [10.0]
    assert str(failed.value) == (
        "the tap opened no file chooser within 10 s (fileChooserAccept; a page can open one "
        "only in the first 5 s after a tap, and farm waited 5 s more for a busy machine)")


def test_a_wait_the_case_cut_short_is_named_as_made(waited) -> None:
    with pytest.raises(StepFailed) as failed:
        chooser.tap_choosing_files(Page(), 10, 20, ["/tmp/a.txt"], 2.5)
    assert waited == [2.5]
    assert str(failed.value) == "the tap opened no file chooser within 2.5 s (fileChooserAccept)"
