"""README: TTY_INTERACTIVE=1 keeps the rich view on TERM=dumb. `live_view` chose it, but rich
draws a dumb terminal's live view only when it stops: in a pty under TERM=dumb the run showed
no progress at all. Its console now redraws there (cursor codes, a refresh each time)."""

from __future__ import annotations

import io

from farm.progress import live_console


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _drawn(monkeypatch, env: dict[str, str]) -> str:
    from rich.live import Live
    monkeypatch.delenv("TTY_INTERACTIVE", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = Tty()
    live = Live("first", console=live_console(env, file=out), auto_refresh=False)
    live.start()
    live.update("second", refresh=True)
    live.update("third", refresh=True)
    drawn = out.getvalue()      # before it stops: what the run showed while it went
    live.stop()
    return drawn


def test_tty_interactive_redraws_on_a_dumb_terminal_pip49(monkeypatch):
    drawn = _drawn(monkeypatch, {"TERM": "dumb", "TTY_INTERACTIVE": "1"})
    assert "second" in drawn and "third" in drawn
    assert "\x1b[" in drawn     # the cursor moved back over the last draw


def test_a_dumb_terminal_without_it_is_left_to_rich_pip49(monkeypatch):
    assert "second" not in _drawn(monkeypatch, {"TERM": "dumb"})
