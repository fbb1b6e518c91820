"""The simulated iPhone's alert draws Chinese text in a CJK font when one is installed: a
page's `alert("删除成功")` showed as a row of empty boxes in the screenshots (Pillow's own
font has no such glyphs), so two different Chinese titles looked the same."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from farm.devices.sim import ios_alert
from farm.devices.sim.fonts import cjk_file


def _blank() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (390, 844), (255, 255, 255)).save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.skipif(cjk_file() is None, reason="no CJK font installed")
def test_two_chinese_alerts_look_different():
    shots = [ios_alert.draw(_blank(), ios_alert.Alert(title, "", ("好",)), 1.0)
             for title in ("删除成功", "登录失败")]
    one, two = (Image.open(io.BytesIO(png)).convert("L") for png in shots)
    assert one.tobytes() != two.tobytes()


def test_latin_alerts_keep_the_built_in_font():
    from PIL import ImageFont

    from farm.devices.sim.fonts import font_for
    assert isinstance(font_for("OK", 13), type(ImageFont.load_default(size=13)))
