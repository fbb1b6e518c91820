"""A case's ``cookie:`` file or prompt image that is no file: ``url: /dev/zero`` read until
the memory ran out, and a FIFO (``cookie: pipe``) left the load waiting for a writer that
never came (``farm run --collect-only`` never returned). Each is a suite error at its
file:line, read no further, as a suite file that is a FIFO or a device already was; a cookie
file that is not UTF-8 says so instead of quoting Python's codec."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

CASE = """\
web:
  url: about:blank
  cookie: {cookie}
tasks:
  - name: t
    flow:
      - aiTap:
          prompt: the logo
          images:
            - name: logo
              url: {image}
"""
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
       b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
       b"\x00\x00\x00\x00IEND\xaeB`\x82")


@pytest.fixture
def collect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "cookies.json").write_text('[{"name": "a", "value": "b"}]')
    (tmp_path / "s" / "logo.png").write_bytes(PNG)
    monkeypatch.chdir(tmp_path)

    def run(cookie: str = "cookies.json", image: str = "logo.png") -> tuple[int, list[str]]:
        (tmp_path / "s" / "c.yaml").write_text(CASE.format(cookie=cookie, image=image))
        code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
        return code, (problems(err) if code == 4 else err.splitlines())[1:]
    return run


@pytest.mark.timeout(60)        # (before: the FIFO's open waited for ever)
def test_a_fifo_as_cookie_file_or_image_is_refused_unread(collect, tmp_path) -> None:
    os.mkfifo(tmp_path / "s" / "pipe")
    assert collect(cookie="pipe", image="pipe") == (4, [
        "  s/c.yaml:3:11: web.cookie: 'pipe' is a FIFO (named pipe), not a JSON cookie file "
        "(relative to the case file)",
        f"  s/c.yaml:11:20: aiTap image 'pipe': a FIFO (named pipe), not an image file "
        f"({tmp_path / 's' / 'pipe'})"])


def test_a_device_as_image_is_refused_unread(collect) -> None:
    assert collect(image="/dev/zero") == (4, [
        "  s/c.yaml:11:20: aiTap image '/dev/zero': a character device, not an image file "
        "(/dev/zero)"])


def test_a_cookie_file_that_is_not_utf8_says_so(collect, tmp_path) -> None:
    (tmp_path / "s" / "cookies.json").write_bytes(b'\xff\xfe[\x00]\x00')
    assert collect() == (4, [
        "  s/c.yaml:3:11: web.cookie: 'cookies.json' is not UTF-8 text (at byte 0): save the "
        "cookie file as UTF-8"])


def test_files_load(collect) -> None:
    assert collect() == (0, [])
