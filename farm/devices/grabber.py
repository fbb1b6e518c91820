"""Screenshot caching: several consumers (locator, report, model) ask for the same screen.

A screenshot costs tens of milliseconds on a browser and far more on a phone, and nothing
changes on screen between two looks unless farm acted -- or the app animates, which ``ttl``
bounds.
"""

from __future__ import annotations

import time
from typing import Callable

from farm import metrics
from farm.devices import phone_edges
from farm.devices.base import Device, PluginDevice


class Later:
    """An image being taken in the background: calling it gives the image (waiting for it if
    need be); ``ready()`` says whether that call returns at once, ``took()`` how long the
    capture took once it is in (None where the device does not say)."""

    def __init__(self, get: Callable[[], bytes | None], ready: Callable[[], bool],
                 took: Callable[[], float | None] = lambda: None) -> None:
        self._get = get
        self.ready = ready
        self.took = took

    def __call__(self) -> bytes | None:
        return self._get()


def ready(image: Callable[[], bytes | None]) -> bool:
    """Whether asking ``image`` (from `ScreenshotGrabber.capture_evidence`) returns at once."""
    return image.ready() if isinstance(image, Later) else True


class ScreenshotGrabber:
    """Returns a cached PNG while it is younger than ``ttl`` seconds and not invalidated.
    A device with ``without_secrets`` (a phone), or a device plugin's, has each screenshot go
    through it first: what the report keeps and a model is sent never shows a secret the
    screen's UI tree holds (`phone_edges.plugin_without_secrets`).

    Call `invalidate` after every action on the device.  ``captures`` counts real screenshots,
    ``hits`` cached answers, ``last_capture_seconds`` how long the last real one took.
    """

    def __init__(self, device: Device, ttl: float = 0.3,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.device = device
        self.ttl = ttl
        self.clock = clock
        self.captures = 0
        self.hits = 0
        self.last_capture_seconds: float | None = None
        self._png: bytes | None = None
        self._taken_at = 0.0
        self._took = 0.0
        # called on the device's thread as it starts a wait with nothing else to do (a sleep,
        # the pause between two looks of a waitForText): the case's report images that are in
        # go to disk then (`CaseEvidence.store_ready`), not only when the case goes on
        self.idle: Callable[[], None] = lambda: None

    def grab(self) -> bytes:
        """The current screen as PNG bytes, from cache when fresh. DeviceError when a phone
        case's screen may show a secret that its unreadable UI tree leaves nowhere to black
        out (`farm.devices.phone_edges.without_secrets`): no such image is kept or sent."""
        now = self.clock()
        # A slow device (a phone's screencap takes 200+ ms) would otherwise be past the TTL
        # before the loop's next look: the window runs ``ttl`` past when the capture arrived.
        if self._png is not None and now - self._taken_at < self.ttl + self._took:
            self.hits += 1
            return self._png
        png = self.device.screenshot()
        done = self.clock()
        self.captures += 1
        self.last_capture_seconds = done - now
        metrics.screenshot(getattr(self.device, "platform", "unknown"), done - now)
        # a phone: the screen's text holding a secret blacked out of what is kept and sent
        # (the browser does it as it captures: `farm.devices.web.capture.PageCapture.hide`)
        if getattr(type(self.device), "without_secrets", None) is not None:
            png = self.device.without_secrets(png)
            done = self.clock()
        elif isinstance(self.device, PluginDevice):     # (its tree, by the phones' rules)
            png = phone_edges.plugin_without_secrets(self.device, png)
            done = self.clock()
        # age counts from when the capture started: the screen may have changed while it ran
        self._png, self._taken_at, self._took = png, now, done - now
        return png

    def capture_evidence(self) -> Callable[[], bytes | None]:
        """The screen as it is now, for the report: returns a callable giving the image (JPEG
        where the device encodes it), or None when the device knows the screen has not changed
        since its last such image. Devices that capture in the background (the browser)
        return at once and the capture overlaps what farm does next; others capture now."""
        # (farm's own devices': a plugin's would skip `plugin_without_secrets`)
        capture = None if isinstance(self.device, PluginDevice) else \
            getattr(self.device, "capture_evidence", None)
        if capture is not None:
            return self._timed(capture)
        self.invalidate()          # after a wait the cached frame is from before it
        png = self.grab()
        return lambda: png

    def _timed(self, capture: Callable[[], Callable[[], bytes | None]]
               ) -> Callable[[], bytes | None]:
        """A background capture, timed from its start to its image (once, however often the
        image is asked for; by the device's own clock where it gives one: the image may be
        asked for well after it came in) for farm_screenshot_duration_seconds; an unchanged
        screen (no image taken) is not a screenshot."""
        started = self.clock()
        finish = capture()
        taken: list[bytes | None] = []

        def image() -> bytes | None:
            if not taken:
                taken.append(finish())
                if taken[0] is not None:
                    took = finish.took() if isinstance(finish, Later) else None
                    metrics.screenshot(getattr(self.device, "platform", "unknown"),
                                       took if took is not None else self.clock() - started)
            return taken[0]
        return Later(image, lambda: bool(taken) or ready(finish))

    def invalidate(self) -> None:
        """Forget the cached screenshot (the screen may have changed)."""
        self._png = None

    @property
    def cached(self) -> bytes | None:
        """The cached PNG regardless of age (for reports after a failure), or None."""
        return self._png
