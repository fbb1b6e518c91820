"""FakeDevice: the Device protocol in memory, for unit tests of everything above the devices.

Screens are UITrees; tapping a node whose text/name/resource_id matches a transition moves to
another screen.  Every action is recorded in ``.actions`` as a tuple, e.g. ``("tap", 10, 20)``.

    login = UITree(source="dom", nodes=[UINode(id=0, role="button", text="Sign in", ...)])
    home = UITree(source="dom", page_text="Welcome")
    dev = FakeDevice(screens={"login": login, "home": home}, start="login",
                     transitions={"Sign in": "home"})
"""

from __future__ import annotations

import io
import threading
import zlib
from typing import Any, Callable

from farm.devices.base import Rect, UINode, UITree
from farm.errors import DeviceError, DeviceLost, StepFailed

HANG = object()  # script result: block until timeout_s (StepFailed) or kill() (DeviceLost)


class FakeDevice:
    """In-memory device.

    ``transitions`` keys are node texts (any screen) or ``(screen, text)`` pairs; values are
    screen names.  ``scripts`` maps code to a value, an exception to raise, `HANG`, or a
    callable taking the device.  ``xpaths`` maps XPaths to rects.  ``errors`` maps an action
    name ("tap", "screenshot", ...) to an exception raised whenever it is called.
    ``scrolls`` maps a screen to the screen shown after `scroll_into_view` (none: no scroll).
    """

    def __init__(self, tree: UITree | None = None, *, screens: dict[str, UITree] | None = None,
                 start: str | None = None,
                 transitions: dict[str | tuple[str, str], str] | None = None,
                 name: str = "fake-1", platform: str = "web", size: tuple[int, int] = (1280, 800),
                 scripts: dict[str, Any] | None = None,
                 xpaths: dict[str, list[Rect]] | None = None,
                 errors: dict[str, BaseException] | None = None,
                 scrolls: dict[str, str] | None = None) -> None:
        if screens is None:
            screens = {"main": tree or UITree(source="dom", nodes=[], page_text="")}
        if not screens:
            raise ValueError("FakeDevice needs at least one screen")
        self.name = name
        self.platform = platform
        self.about = ""                 # what a real device says it is (`Device` docstring)
        self.screens = screens
        self.start = start or next(iter(screens))
        if self.start not in screens:
            raise ValueError(f"unknown start screen {self.start!r}")
        self.transitions = transitions or {}
        self.scripts = scripts or {}
        self.xpaths = xpaths or {}
        self.errors = errors or {}
        self.scrolls = scrolls or {}
        self.screen = self.start
        self.actions: list[tuple[Any, ...]] = []
        self.values: dict[tuple[str, int], str] = {}   # (screen, node id) -> typed text
        self.focused: int | None = None
        self.screenshots = 0
        self.hierarchies = 0
        self.opened = False
        self.closed = False
        self._size = size
        self._killed = threading.Event()
        self._png_cache: dict[str, bytes] = {}

    # -- plumbing ----------------------------------------------------------------------------

    def _check(self, action: str) -> None:
        if self._killed.is_set():
            raise DeviceLost(f"device {self.name} was killed")
        if action in self.errors:
            raise self.errors[action]

    def _act(self, *action: Any) -> None:
        self._check(action[0])
        self.actions.append(action)

    @property
    def tree(self) -> UITree:
        """The current screen's tree."""
        return self.screens[self.screen]

    def node_at(self, x: int, y: int) -> UINode | None:
        """The smallest visible node containing the point (what a tap would hit)."""
        hits = [n for n in self.tree.nodes if n.visible
                and n.rect.x <= x < n.rect.x + n.rect.width
                and n.rect.y <= y < n.rect.y + n.rect.height]
        return min(hits, key=lambda n: n.rect.width * n.rect.height, default=None)

    def _transition_for(self, node: UINode) -> str | None:
        for n in [node, *self.tree.ancestors(node)]:
            for key in (n.text, n.name, n.resource_id):
                if not key:
                    continue
                target = self.transitions.get((self.screen, key)) or self.transitions.get(key)
                if target:
                    return target
        return None

    # -- protocol ----------------------------------------------------------------------------

    def open(self) -> None:
        self._killed.clear()
        self.opened = True
        self.actions.append(("open",))

    def close(self) -> None:
        self.closed = True
        self.actions.append(("close",))

    def start_session(self, target: Any) -> None:
        self._act("start_session", getattr(target, "url", None) or getattr(target, "launch", None))
        self.screen = self.start
        self.values.clear()
        self.focused = None

    def continue_session(self, target: Any) -> None:
        """The next file of a shared-context batch: the start screen again, typed values kept
        (what a browser keeps in cookies and storage)."""
        self._act("continue_session", getattr(target, "url", None))
        self.screen = self.start
        self.focused = None

    def end_session(self) -> None:
        if not self._killed.is_set():
            self.actions.append(("end_session",))

    def size(self) -> tuple[int, int]:
        self._check("size")
        return self._size

    def screenshot(self) -> bytes:
        """A real PNG of the device size: a screen-specific colour with node outlines."""
        self._check("screenshot")
        self.screenshots += 1
        if self.screen not in self._png_cache:
            self._png_cache[self.screen] = self._render()
        return self._png_cache[self.screen]

    def _render(self) -> bytes:
        from PIL import Image, ImageDraw

        seed = zlib.crc32(self.screen.encode())
        colour = (200 + seed % 56, 200 + (seed >> 8) % 56, 200 + (seed >> 16) % 56)
        img = Image.new("RGB", self._size, colour)
        draw = ImageDraw.Draw(img)
        for n in self.tree.nodes:
            r = n.rect
            if n.visible and r.width > 0 and r.height > 0:
                draw.rectangle([r.x, r.y, r.x + r.width - 1, r.y + r.height - 1], outline=(0, 0, 0))
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        return buf.getvalue()

    def hierarchy(self) -> UITree:
        self._check("hierarchy")
        self.hierarchies += 1
        return self.tree

    def query_xpath(self, xpath: str) -> list[Rect]:
        self._check("query_xpath")
        if not xpath.strip().startswith(("/", "(", ".")):
            raise StepFailed(f"invalid XPath {xpath!r}")
        return list(self.xpaths.get(xpath, []))

    def tap(self, x: int, y: int) -> None:
        """Record the tap; focus an editable node or follow a transition."""
        self._act("tap", x, y)
        node = self.node_at(x, y)
        self.focused = node.id if node is not None and node.editable else None
        if node is not None:
            target = self._transition_for(node)
            if target:
                if target not in self.screens:
                    raise DeviceError(f"transition to unknown screen {target!r}")
                self.screen = target
                self.focused = None

    def double_tap(self, x: int, y: int) -> None:
        self._act("double_tap", x, y)

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self._act("long_press", x, y, duration_ms)

    def hover(self, x: int, y: int) -> None:
        self._act("hover", x, y)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self._act("swipe", x1, y1, x2, y2, duration_ms)

    def scroll(self, x: int, y: int, dx: int, dy: int) -> None:
        self._act("scroll", x, y, dx, dy)

    def scroll_into_view(self, node: UINode) -> bool:
        self._act("scroll_into_view", node.id)
        if self.screen in self.scrolls:
            self.screen = self.scrolls[self.screen]
        return True

    def type_text(self, text: str) -> None:
        self._act("type_text", text)
        if self.focused is not None:
            key = (self.screen, self.focused)
            self.values[key] = self.values.get(key, "") + text

    def clear_text(self) -> None:
        self._act("clear_text")
        if self.focused is not None:
            self.values[(self.screen, self.focused)] = ""

    def press(self, key: str) -> None:
        self._act("press", key)

    def launch(self, app: str) -> None:
        self._act("launch", app)

    def terminate(self, app: str) -> None:
        self._act("terminate", app)

    def run_script(self, code: str, timeout_s: float) -> Any:
        self._act("run_script", code)
        result = self.scripts.get(code)
        if result is HANG:
            if self._killed.wait(timeout_s):
                raise DeviceLost(f"device {self.name} was killed")
            raise StepFailed(f"javascript did not finish within {timeout_s:g}s")
        if isinstance(result, BaseException):
            raise result
        if callable(result):
            fn: Callable[[FakeDevice], Any] = result
            return fn(self)
        return result

    def healthy(self) -> bool:
        return not self._killed.is_set()

    def kill(self) -> None:
        """Mark the device dead: healthy() is False and every later call raises DeviceLost."""
        self._killed.set()

    def value_of(self, node_id: int) -> str:
        """Text typed into a node of the current screen."""
        return self.values.get((self.screen, node_id), "")
