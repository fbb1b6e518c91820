"""A phone's screen size follows its turn: `wm size` says it upright whatever the rotation,
while screencap, the UI dump and `input` are sideways in landscape (a button right of x=1080
on a turned 1080x2400 phone was "off screen")."""

from __future__ import annotations

import io

from PIL import Image

from farm.devices.android import AndroidDevice, png_frame


def png(width: int, height: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height)).save(buf, "PNG")
    return buf.getvalue()


def phone() -> AndroidDevice:
    device = AndroidDevice("emulator-5554", None, "emulator-5554")
    device._size = (1080, 2400)         # `wm size`: Physical size: 1080x2400
    return device


def test_a_landscape_screenshot_turns_the_size():
    device = phone()
    assert png_frame(png(2400, 1080)) == (2400, 1080)
    device._note_turn(frame=png_frame(png(2400, 1080)))
    assert device.size() == (2400, 1080)
    device._note_turn(frame=png_frame(png(1080, 2400)))
    assert device.size() == (1080, 2400)


def test_a_dump_says_how_the_screen_is_turned():
    device = phone()
    device._note_turn(xml="<?xml version='1.0' ?><hierarchy rotation=\"3\"><node/></hierarchy>")
    assert device.size() == (2400, 1080)
    device._note_turn(xml='<hierarchy rotation="2"><node/></hierarchy>')
    assert device.size() == (1080, 2400)


def test_a_frame_of_another_size_says_nothing():
    device = phone()
    device._note_turn(frame=(720, 1600))            # (a screencap scaled down: not a turn)
    device._note_turn(frame=png_frame(b"not a png"))
    assert device.size() == (1080, 2400)
