"""The two floors under `bench/vs_playwright.py`'s remaining gaps, each measured side by side
on one Chromium (the one farm finds, farm's launch flags):

1. capture: Page.captureScreenshot (JPEG, as farm's evidence) right after the page changed and
   on an unchanged page, median ms, with Chromium's default frame pacing and with
   ``--disable-frame-rate-limit``; then the browser's CPU over a few seconds on a page with a
   CSS animation under each (what that flag costs a page that animates); then what a capture
   is made of: a PNG, a JPEG of a small clip, two animation frames, a screencast's next frame;
   then what a capture costs each of Chromium's processes and Playwright's driver in CPU (the
   after-images' share of a run's CPU on a small machine); then a screencast on a page that
   animates: how often its first frame after a change shows the change, and how long until a
   frame does (told by the frame's pixels), against the capture;
2. the hop: one Runtime.evaluate through Playwright's CDPSession (Python client, Node driver,
   Chromium) against the same call on a DevTools websocket of its own (this script's
   minimal client), Python CPU and wall time per call, and the same for a JPEG capture.

    .venv/bin/python bench/floors.py [--calls 300] [--shots 25]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import statistics
import struct
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from farm.devices.chromium import BROWSER_FLAGS, find_chromium  # noqa: E402

SHOT = {"format": "jpeg", "quality": 70, "optimizeForSpeed": True}   # farm's evidence capture
PAGE = "<h1>Farm Shop</h1>" + "<p>a line of text</p>" * 40 + "<button>Sign in</button>"
SPINNER = ("<style>@keyframes s{to{transform:rotate(360deg)}} i{display:block;width:40px;"
           "height:40px;border:4px solid #888;animation:s 1s linear infinite}</style><i></i>")
TOGGLE = "document.body.style.background = document.body.style.background ? '' : '#ffd'"


class DevToolsSocket:
    """A blocking DevTools websocket to one page (text frames, no extensions): enough to time
    a round trip without Playwright's client in the way."""

    def __init__(self, port: int, target: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET /devtools/page/{target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
             f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
             "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(4096)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise SystemExit(f"DevTools refused the websocket: {head[:200]!r}")
        self.buf = head.split(b"\r\n\r\n", 1)[1]
        self.last = 0

    def send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.last += 1
        data = json.dumps({"id": self.last, "method": method, "params": params}).encode()
        n, mask = len(data), os.urandom(4)
        size = bytes([0x80 | n]) if n < 126 else (
            bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536
            else bytes([0x80 | 127]) + struct.pack(">Q", n))
        pad = (mask * (n // 4 + 1))[:n]
        body = (int.from_bytes(data, "little") ^ int.from_bytes(pad, "little")).to_bytes(n, "little")
        self.sock.sendall(b"\x81" + size + mask + body)
        while True:
            reply = json.loads(self._message())
            if reply.get("id") == self.last:
                return reply.get("result", {})

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise SystemExit("DevTools closed the websocket")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _message(self) -> bytes:
        out = b""
        while True:
            first, second = self._take(2)
            n = second & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._take(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._take(8))[0]
            out += self._take(n)
            if first & 0x80:
                return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree_cpu(pid: int) -> float:
    import psutil

    total = 0.0
    root = psutil.Process(pid)
    for proc in [root, *root.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def _browser_pid() -> int:
    import psutil

    me = psutil.Process()
    return next(p.pid for p in me.children(recursive=True)
                if "--remote-debugging-pipe" in " ".join(p.cmdline()))


def capture_floor(pw: Any, chromium: str, shots: int, extra: list[str]) -> dict[str, float]:
    """Median capture ms after a change and unchanged, and the browser's CPU share (of one
    core) over 3 s on a page with a CSS animation, under ``extra`` flags."""
    browser = pw.chromium.launch(executable_path=chromium, args=[*BROWSER_FLAGS, *extra])
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_content(PAGE)
        cdp = page.context.new_cdp_session(page)
        changed, same = [], []
        for _ in range(shots):
            page.evaluate(TOGGLE)
            began = time.perf_counter()
            cdp.send("Page.captureScreenshot", SHOT)
            changed.append(time.perf_counter() - began)
            began = time.perf_counter()
            cdp.send("Page.captureScreenshot", SHOT)
            same.append(time.perf_counter() - began)
        page.set_content(SPINNER)
        pid = _browser_pid()
        page.wait_for_timeout(500)
        before, began = _tree_cpu(pid), time.monotonic()
        page.wait_for_timeout(3000)
        share = (_tree_cpu(pid) - before) / (time.monotonic() - began)
    finally:
        browser.close()
    return {"changed": 1000 * statistics.median(changed),
            "same": 1000 * statistics.median(same), "spinner": 100 * share}


def capture_parts(pw: Any, chromium: str, shots: int) -> list[tuple[str, float]]:
    """(what, median ms) after a change, for what a capture is made of: farm's JPEG, a PNG, a
    JPEG of a 100x100 clip (what is left once encoding and carrying the image are almost
    nothing), two animation frames (requestAnimationFrame twice: Chromium's frame pacing), and
    the next frame of a screencast (Page.startScreencast, JPEG 70: frames pushed as drawn)."""
    browser = pw.chromium.launch(executable_path=chromium, args=list(BROWSER_FLAGS))
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_content(PAGE)
        cdp = page.context.new_cdp_session(page)
        two_frames = {"expression": TOGGLE + "; new Promise((r) => requestAnimationFrame(() => "
                      "requestAnimationFrame(r)))", "awaitPromise": True}
        rows = []
        for what, method, params in (
                ("JPEG 70 (farm's evidence)", "Page.captureScreenshot", SHOT),
                ("PNG", "Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True}),
                ("JPEG 70 of a 100x100 clip", "Page.captureScreenshot",
                 {**SHOT, "clip": {"x": 0, "y": 0, "width": 100, "height": 100, "scale": 1}}),
                ("two animation frames", "Runtime.evaluate", two_frames)):
            times = []
            for _ in range(shots):
                if method != "Runtime.evaluate":
                    cdp.send("Runtime.evaluate", {"expression": TOGGLE})
                began = time.perf_counter()
                cdp.send(method, params)
                times.append(time.perf_counter() - began)
            rows.append((what, 1000 * statistics.median(times)))
        frames: list[float] = []
        cdp.on("Page.screencastFrame", lambda e: (frames.append(time.perf_counter()), cdp.send(
            "Page.screencastFrameAck", {"sessionId": e["sessionId"]})))
        cdp.send("Page.startScreencast", {"format": "jpeg", "quality": 70})
        page.wait_for_timeout(300)
        times = []
        for _ in range(shots):
            seen, began = len(frames), time.perf_counter()
            cdp.send("Runtime.evaluate", {"expression": TOGGLE})
            while len(frames) == seen:
                page.wait_for_timeout(1)
            times.append(frames[seen] - began)
        rows.append(("the next screencast frame", 1000 * statistics.median(times)))
    finally:
        browser.close()
    return rows


# a box whose colour a change flips, away from the spinner (top left)
BOX = ("<div id=box style='position:fixed;left:600px;top:0;width:100px;height:100px;"
       "background:rgb(255,0,0)'></div>")
COLOURS = (("rgb(0,0,255)", "blue"), ("rgb(255,0,0)", "red"))


def _cpu_by_process(pid: int) -> dict[str, float]:
    """CPU seconds so far of the processes under ``pid``, by kind: Chromium's by --type=
    (the browser process has none), Playwright's Node driver as "driver"."""
    import psutil

    out: dict[str, float] = {}
    for proc in psutil.Process(pid).children(recursive=True):
        try:
            cmd, times = proc.cmdline(), proc.cpu_times()
        except psutil.Error:
            continue
        kind = next((a.split("=", 1)[1] for a in cmd if a.startswith("--type=")), "browser")
        kind = "driver" if "node" in proc.name() else kind
        if kind in ("utility", "zygote"):
            continue
        out[kind] = out.get(kind, 0.0) + times.user + times.system
    return out


def capture_cpu(pw: Any, chromium: str, shots: int) -> list[tuple[str, dict[str, float]]]:
    """(what, CPU ms per iteration by process kind): a small change alone, a change and a
    capture, a capture of an unchanged page (shots x 4 each)."""
    browser = pw.chromium.launch(executable_path=chromium, args=list(BROWSER_FLAGS))
    rows = []
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_content(PAGE)
        cdp = page.context.new_cdp_session(page)
        change = {"expression": "document.querySelector('h1').textContent = 'Farm ' + "
                                "Math.random()"}
        for what, changed, captured in (("a small change alone", True, False),
                                        ("a small change and a capture", True, True),
                                        ("a capture of an unchanged page", False, True)):
            n, before = shots * 4, _cpu_by_process(os.getpid())
            for _ in range(n):
                if changed:
                    cdp.send("Runtime.evaluate", change)
                if captured:
                    cdp.send("Page.captureScreenshot", SHOT)
            after = _cpu_by_process(os.getpid())
            rows.append((what, {k: 1000 * (after[k] - before.get(k, 0.0)) / n
                                for k in sorted(after)}))
    finally:
        browser.close()
    return rows


def _colour(data: str) -> str:
    import io

    from PIL import Image

    r, _, b = Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB").getpixel((650, 50))
    if r > 200 and b < 60:
        return "red"
    return "blue" if b > 200 and r < 60 else "?"


def _shown(page: Any, frames: list[tuple[float, str]], seen: int, name: str) -> float:
    """When the first frame from ``seen`` on that shows ``name`` came (each frame decoded once:
    the frames' times are stamped as Playwright's loop hands them over, which it does only
    while this waits, so the wait between looks stays short)."""
    began = time.perf_counter()
    while True:
        while seen < len(frames):
            if _colour(frames[seen][1]) == name:
                return frames[seen][0]
            seen += 1
        if time.perf_counter() - began > 5:
            raise SystemExit("no screencast frame showed the change within 5 s")
        page.wait_for_timeout(1)


def screencast_on_animation(pw: Any, chromium: str, shots: int) -> dict[str, float]:
    """On a page with a CSS spinner: after a colour change, the capture's median ms and how
    often it shows the change; the first screencast frame's median ms and how often it shows
    it; the median and p90 ms until a screencast frame does (known by its pixels)."""
    browser = pw.chromium.launch(executable_path=chromium, args=list(BROWSER_FLAGS))
    got: dict[str, list[float]] = {"shot": [], "shot_ok": [], "first": [], "first_ok": [],
                                   "shown": []}
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_content(BOX + SPINNER)
        cdp = page.context.new_cdp_session(page)
        frames: list[tuple[float, str]] = []
        for i in range(shots * 2):
            css, name = COLOURS[i % 2]
            cdp.send("Runtime.evaluate", {"expression": f"box.style.background = '{css}'"})
            began = time.perf_counter()
            data = cdp.send("Page.captureScreenshot", SHOT)["data"]
            got["shot"].append(time.perf_counter() - began)
            got["shot_ok"].append(_colour(data) == name)
            page.wait_for_timeout(37)     # (the next change at another phase of the frame)
        cdp.on("Page.screencastFrame", lambda e: (
            frames.append((time.perf_counter(), e["data"])),
            cdp.send("Page.screencastFrameAck", {"sessionId": e["sessionId"]})))
        cdp.send("Page.startScreencast", {"format": "jpeg", "quality": 70})
        page.wait_for_timeout(300)
        for i in range(shots * 2):
            css, name = COLOURS[i % 2]
            seen = len(frames)
            cdp.send("Runtime.evaluate", {"expression": f"box.style.background = '{css}'"})
            began = time.perf_counter()
            got["shown"].append(_shown(page, frames, seen, name) - began)
            got["first"].append(frames[seen][0] - began)
            got["first_ok"].append(_colour(frames[seen][1]) == name)
            page.wait_for_timeout(37)
        cdp.send("Page.stopScreencast")
    finally:
        browser.close()
    shown = sorted(got["shown"])
    return {"n": len(shown), "shot": 1000 * statistics.median(got["shot"]),
            "shot_ok": sum(got["shot_ok"]), "first": 1000 * statistics.median(got["first"]),
            "first_ok": sum(got["first_ok"]), "shown": 1000 * statistics.median(shown),
            "shown_p90": 1000 * shown[int(0.9 * (len(shown) - 1))]}


def _per_call(fn: Callable[[], Any], calls: int) -> tuple[float, float]:
    fn()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(calls):
        fn()
    return (1000 * (time.process_time() - cpu) / calls,
            1000 * (time.perf_counter() - wall) / calls)


def hop_floor(pw: Any, chromium: str, calls: int, shots: int) -> list[tuple[str, float, float]]:
    """(what, Python CPU ms, wall ms) per call, through Playwright and on a socket of its own."""
    port = _free_port()
    browser = pw.chromium.launch(executable_path=chromium,
                                 args=[*BROWSER_FLAGS, f"--remote-debugging-port={port}"])
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_content(PAGE)
        cdp = page.context.new_cdp_session(page)
        target = cdp.send("Target.getTargetInfo")["targetInfo"]["targetId"]
        own = DevToolsSocket(port, target)
        read = {"expression": "document.body.innerText.length", "returnByValue": True}
        rows = []
        for what, send, n, params in (
                ("Runtime.evaluate, Playwright's CDPSession", cdp.send, calls, read),
                ("Runtime.evaluate, a DevTools socket of its own", own.send, calls, read),
                ("captureScreenshot, Playwright's CDPSession", cdp.send, shots, SHOT),
                ("captureScreenshot, a DevTools socket of its own", own.send, shots, SHOT)):
            method = "Runtime.evaluate" if params is read else "Page.captureScreenshot"
            cpu, wall = _per_call(lambda: send(method, params), n)
            rows.append((what, cpu, wall))
    finally:
        browser.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--shots", type=int, default=25)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    info = find_chromium()
    if info is None:
        raise SystemExit("no Chromium found (apt-get install chromium or set FARM_CHROMIUM_PATH)")
    chromium = str(info.path)
    print(f"chromium: {chromium}; farm's launch flags")
    with sync_playwright() as pw:
        print("1. capture (Page.captureScreenshot, JPEG 70, 1280x800), median ms:")
        for label, extra in (("default frame pacing", []),
                             ("--disable-frame-rate-limit", ["--disable-frame-rate-limit"])):
            got = capture_floor(pw, chromium, args.shots, extra)
            print(f"   {label:28s} after a change {got['changed']:5.1f}   unchanged "
                  f"{got['same']:5.1f}   browser CPU on a spinner page {got['spinner']:4.0f}% "
                  "of a core")
        print("   what it is made of, after a change, median ms:")
        for what, ms in capture_parts(pw, chromium, args.shots):
            print(f"   {what:44s} {ms:5.1f}")
        print("   what it costs in CPU, ms per iteration (Chromium's processes, the driver):")
        for what, cpu in capture_cpu(pw, chromium, args.shots):
            parts = ", ".join(f"{kind} {ms:.1f}" for kind, ms in cpu.items())
            print(f"   {what:32s} {sum(cpu.values()):5.1f}  ({parts})")
        sc = screencast_on_animation(pw, chromium, args.shots)
        print(f"   on a page that animates, after a change ({sc['n']} changes): capture "
              f"{sc['shot']:.1f} ms, shows it {sc['shot_ok']}/{sc['n']}; the first screencast "
              f"frame {sc['first']:.1f} ms, shows it {sc['first_ok']}/{sc['n']}; the first "
              f"frame that shows it {sc['shown']:.1f} ms (p90 {sc['shown_p90']:.1f})")
        print("2. the hop, per call: Python CPU ms / wall ms")
        for what, cpu, wall in hop_floor(pw, chromium, args.calls, args.shots):
            print(f"   {what:48s} {cpu:6.3f} / {wall:6.2f}")


if __name__ == "__main__":
    main()
