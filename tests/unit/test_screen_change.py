"""Whether the screen changed after an action (farm.agent.images.alike), on screenshots of a
page drawn with real text: the ai loop tells the model it missed, and fails an act as stuck,
only when the screen really stayed the same."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from farm.agent.images import alike, grey_frame

FONT = ImageFont.load_default(size=16)


def screenshot(quantity: str = "4", typed: str = "", caret: bool = False,
               compress: int = 6) -> bytes:
    """A 1280x800 PNG of a small form: a heading, a quantity line, a text field."""
    img = Image.new("RGB", (1280, 800), "white")
    draw = ImageDraw.Draw(img)
    draw.text((8, 20), "Quantity picker", fill="black", font=ImageFont.load_default(size=32))
    draw.text((8, 83), f"Quantity: {quantity}", fill="black", font=FONT)
    draw.rectangle([8, 114, 74, 135], outline="grey", fill="#eee")
    draw.text((12, 116), "Add one", fill="black", font=FONT)
    draw.rectangle([80, 114, 300, 135], outline="grey")
    draw.text((84, 116), typed, fill="black", font=FONT)
    if caret:                                 # a text caret: 1 px wide, a line of text high
        x = 84 + round(draw.textlength(typed, font=FONT)) + 1
        draw.line([x, 117, x, 132], fill="black")
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=compress)
    return out.getvalue()


def same_pixels_other_bytes(**kw) -> tuple[bytes, bytes]:
    """Two PNGs of one screen that differ in their bytes (each decoded on its own)."""
    a, b = screenshot(compress=1, **kw), screenshot(compress=9, **kw)
    assert a != b
    return a, b


def test_a_counter_going_from_4_to_5_is_a_change():
    assert not alike(grey_frame(screenshot("4")), grey_frame(screenshot("5")))


def test_a_few_typed_letters_are_a_change():
    assert not alike(grey_frame(screenshot(caret=True)),
                     grey_frame(screenshot(typed="demo", caret=True)))
    assert not alike(grey_frame(screenshot(typed="dem")), grey_frame(screenshot(typed="demo")))


def test_the_same_screen_is_alike():
    a, b = same_pixels_other_bytes(quantity="5", typed="demo")
    assert alike(grey_frame(a), grey_frame(b))


def test_a_blinking_caret_on_the_same_screen_is_no_change():
    shown, hidden = screenshot(typed="demo", caret=True), screenshot(typed="demo")
    assert alike(grey_frame(shown), grey_frame(hidden))


def test_a_caret_blink_with_a_changed_digit_is_a_change():
    assert not alike(grey_frame(screenshot("4", typed="x", caret=True)),
                     grey_frame(screenshot("5", typed="x")))


def test_no_screen_yet_or_another_size_is_a_change():
    frame = grey_frame(screenshot())
    assert not alike(frame, None) and not alike(None, frame)
    assert not alike(frame, frame.resize((640, 400)))
