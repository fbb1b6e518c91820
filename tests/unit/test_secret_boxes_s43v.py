"""Which part of a page's text is blacked out of a screenshot, and the box drawn."""

from __future__ import annotations

import io

from PIL import Image

from farm.agent.images import blacked_out
from farm.devices.web.capture import secret_fields, secret_spans
from farm.suite.vars import Variables

MASK = Variables({"PW": "Hunter2-Secret!"}, ["PW"]).mask


def test_only_the_secret_of_a_text_is_boxed_in_any_form_the_masking_knows() -> None:
    texts = ["Welcome back", "Your password is Hunter2-Secret!", "SHOUTED HUNTER2-SECRET!",
             "b64 SHVudGVyMi1TZWNyZXQh", "😀 Hunter2-Secret! end"]
    spans = secret_spans(texts, MASK)
    assert [s[0] for s in spans] == [1, 2, 3, 4]
    assert spans[0] == [1, 17, 32, 32]            # "Your password is " left open
    assert spans[1][1:3] == [8, 23]
    assert spans[3][1:] == [3, 18, 22]            # UTF-16 offsets (the emoji is two units)
    assert secret_spans(["nothing", "here"], MASK) == []
    assert secret_fields(["alice", "", "pin Hunter2-Secret!"], MASK) == [2]


def test_boxes_are_solid_black_in_the_image_and_nowhere_else() -> None:
    for fmt in ("PNG", "JPEG"):
        out = io.BytesIO()
        Image.new("RGB", (200, 100), "white").save(out, format=fmt)
        img = Image.open(io.BytesIO(blacked_out(out.getvalue(), [[10, 10, 50, 20]], 2.0)))
        assert img.format == fmt and img.size == (200, 100)
        grey = img.convert("L")
        assert grey.crop((20, 20, 120, 60)).getextrema()[1] < 30      # the box, scaled
        assert grey.crop((130, 70, 200, 100)).getextrema()[0] > 220   # the rest untouched
