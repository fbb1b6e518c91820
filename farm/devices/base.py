"""The Device seam: what every platform (browser, Android, iOS) offers the runner and the agent.

Coordinates are in the device's own screen units (CSS pixels for a browser viewport, physical
pixels on Android, points on iOS); screenshots are in pixels of the same screen.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field


class Rect(BaseModel):
    x: int
    y: int
    width: int
    height: int

    @property
    def center(self) -> tuple[int, int]:
        return (self.x + self.width // 2, self.y + self.height // 2)

    def contains(self, other: "Rect") -> bool:
        return (self.x <= other.x and self.y <= other.y
                and self.x + self.width >= other.x + other.width
                and self.y + self.height >= other.y + other.height)

    def as_list(self) -> list[int]:
        return [self.x, self.y, self.width, self.height]


class UINode(BaseModel):
    """One element of a UI tree, platform-neutral.

    ``text`` is the element's visible text (for the web: its innerText when it has text of its
    own); ``name`` its accessible name / content-desc / label / aria-label; ``placeholder`` and
    ``resource_id`` as the platform offers them.
    """

    id: int
    parent: int | None = None
    role: str = ""                  # tag / class / XCUIElementType
    text: str = ""
    name: str = ""
    placeholder: str = ""
    resource_id: str = ""
    label: str = ""                 # text of an associated <label> (web forms)
    rect: Rect
    clickable: bool = False
    editable: bool = False
    visible: bool = True


class UITree(BaseModel):
    source: str                     # "dom", "uiautomator", "wda"
    nodes: list[UINode] = Field(default_factory=list)
    page_text: str | None = None    # full visible text where the platform has it (web innerText)

    def visible_text(self) -> str:
        if self.page_text is not None:
            return self.page_text
        return "\n".join(n.text or n.name for n in self.nodes if n.visible and (n.text or n.name))

    def ancestors(self, node: UINode) -> list[UINode]:
        by_id = {n.id: n for n in self.nodes}
        out = []
        cur = node.parent
        while cur is not None and cur in by_id:
            out.append(by_id[cur])
            cur = by_id[cur].parent
        return out


@runtime_checkable
class Device(Protocol):
    """One device. Its methods are called from the one thread that called ``open()`` (the
    thread running its `farm.slot.DeviceSlot`), except ``kill()``, which any thread may call.

    Optional: ``about``, one line saying what the device is, set by ``open()`` (the browser's
    version, a phone's model and OS); every result of the device carries it and the report
    shows it. A device without it is shown by name alone."""

    name: str           # "browser-1", "emulator-5554", ...
    platform: str       # "web" | "android" | "ios"

    def open(self) -> None:
        """Start or attach (launch the browser, connect to adb/WDA)."""

    def close(self) -> None:
        """Release everything; safe to call twice."""

    def start_session(self, target: Any) -> None:
        """Fresh state for one case (new browser context + open URL, launch the app)."""

    def end_session(self) -> None:
        """Drop the case's state (close the context, stop the app)."""

    def size(self) -> tuple[int, int]: ...

    def screenshot(self) -> bytes:
        """PNG bytes of the current screen."""

    def hierarchy(self) -> UITree | None:
        """The UI tree, or None where the platform has none usable."""

    def query_xpath(self, xpath: str) -> list[Rect]:
        """Rects of visible elements matching an XPath over the platform's native tree."""

    def tap(self, x: int, y: int) -> None: ...
    def double_tap(self, x: int, y: int) -> None: ...
    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None: ...
    def hover(self, x: int, y: int) -> None: ...
    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None: ...
    def scroll(self, x: int, y: int, dx: int, dy: int) -> None: ...

    def scroll_into_view(self, node: UINode) -> bool:
        """One step bringing ``node`` (off-screen, from the last ``hierarchy()``) toward the
        screen: the web scrolls it into view at once (as Playwright does), phones swipe once
        toward it. False when there is no telling where it is (nothing was done)."""

    def type_text(self, text: str) -> None: ...
    def clear_text(self) -> None:
        """Clear the focused input."""

    def press(self, key: str) -> None:
        """Press a key by name (Enter, Tab, Escape, Backspace, ArrowDown, ...)."""

    def launch(self, app: str) -> None: ...
    def terminate(self, app: str) -> None: ...

    def run_script(self, code: str, timeout_s: float) -> Any:
        """Run platform script (JavaScript in the page on the web); return a JSON-able value."""

    def healthy(self) -> bool: ...

    def kill(self) -> None:
        """Hard stop from any thread (watchdog, Ctrl-C): pending calls then fail fast."""


def swipe_toward(rect: Rect, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The finger's (x1, y1, x2, y2) for one swipe that scrolls an off-screen ``rect`` toward
    a screen of ``size`` (60% of a screen per swipe); None when ``rect`` is not off one edge.
    Trees clamp off-screen bounds to the edge they are beyond (uiautomator), or keep them."""
    w, h = size
    cx, cy = w // 2, h // 2
    if rect.y >= h:                                                  # below: finger goes up
        return cx, h * 4 // 5, cx, h // 5
    if rect.y + rect.height <= 0:                                    # above
        return cx, h // 5, cx, h * 4 // 5
    if rect.x >= w:                                                  # right: finger goes left
        return w * 4 // 5, cy, w // 5, cy
    if rect.x + rect.width <= 0:
        return w // 5, cy, w * 4 // 5, cy
    return None


def swipe_into_view(device: Device, node: UINode) -> bool:
    """`Device.scroll_into_view` for touch screens: one `swipe_toward` the node."""
    finger = swipe_toward(node.rect, device.size())
    if finger is None:
        return False
    device.swipe(*finger, 300)
    return True
