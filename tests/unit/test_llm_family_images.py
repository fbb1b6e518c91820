"""What a model of each family is shown, so its coordinates land where it meant:

* qwen2.5-vl reads boxes in pixels of its image resized to a multiple of 28: the image it is
  sent is padded (right, bottom) to that multiple, so the resize changes nothing (a 1000×800
  screenshot was resized to 1008×812 and every box came back up to 1.5 % too far);
* so does UI-TARS-1.5 (open weights), a family of its own (ui-tars-1.5, guessed from a model
  named so) in pixels; UI-TARS 1.0 and the API models (ui-tars) stay 0-1000, and the UI-TARS
  system prompt says which;
* the stand-alone locate prompts show the box in the family's own order: gemini's example
  said [x1, y1, x2, y2] beside "Boxes are [ymin, xmin, ymax, xmax]".
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from farm.agent.images import padded, png_size
from farm.agent.prompts import locate_prompt, section_prompt, system_prompt
from farm.llm.families import FAMILIES, OffImage, family_for, to_rect


def png(w: int, h: int, fmt: str = "PNG") -> bytes:
    img = Image.new("RGB", (w, h), (200, 30, 30))
    img.putpixel((w - 1, h - 1), (1, 2, 3))
    out = io.BytesIO()
    img.save(out, format=fmt)
    return out.getvalue()


@pytest.mark.parametrize("size, want", [((1000, 800), (1008, 812)), ((1080, 2400), (1092, 2408)),
                                        ((28, 1), (28, 28))])
def test_a_qwen25_image_is_padded_to_28_with_the_screenshot_at_the_origin(size, want):
    out = padded(png(*size), FAMILIES["qwen2.5-vl"].pad)
    assert png_size(out) == want
    img = Image.open(io.BytesIO(out)).convert("RGB")
    assert img.getpixel((0, 0)) == (200, 30, 30)
    assert img.getpixel((size[0] - 1, size[1] - 1)) == (1, 2, 3)     # not moved, not scaled
    assert img.getpixel((want[0] - 1, want[1] - 1)) == (0, 0, 0)


def test_a_jpeg_stays_a_jpeg():
    out = padded(png(100, 50, "JPEG"), 28)
    assert out[:3] == b"\xff\xd8\xff" and png_size(out) == (112, 56)


PADDED = {"qwen2.5-vl", "ui-tars-1.5"}       # pixels of their image resized to ×28


@pytest.mark.parametrize("name", sorted(PADDED))
def test_the_pixel_families_of_resizing_models_are_padded(name):
    assert png_size(padded(png(1000, 800), FAMILIES[name].pad)) == (1008, 812)


@pytest.mark.parametrize("name", sorted(set(FAMILIES) - PADDED))
def test_other_families_get_the_screenshot_as_it_is(name):
    shot = png(1000, 800)
    assert padded(shot, FAMILIES[name].pad) is shot


def test_a_multiple_of_28_is_sent_as_it_is():
    shot = png(1008, 812)
    assert padded(shot, 28) is shot


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("prompt", [lambda f: locate_prompt("Go", f),
                                    lambda f: locate_prompt("Go", f, search_area=True),
                                    lambda f: section_prompt("Go", f)],
                         ids=["locate", "zoomed", "section"])
def test_locate_prompts_show_one_box_order(name, prompt):
    text = prompt(FAMILIES[name])
    yx = FAMILIES[name].order == "yx"
    assert ('"bbox": [ymin, xmin, ymax, xmax]' in text) is yx
    assert ("[x1, y1, x2, y2]" in text) is not yx


@pytest.mark.parametrize("model, family", [("openai/UI-TARS-1.5-7B", "ui-tars-1.5"),
                                           ("hosted_vllm/bytedance/uitars-1.5", "ui-tars-1.5"),
                                           ("openai/doubao-1.5-ui-tars-250328", "ui-tars"),
                                           ("openai/ui-tars-72b-dpo", "ui-tars")])
def test_ui_tars_15_is_told_from_the_api_models(model, family):
    assert family_for(None, model).name == family


def test_the_ui_tars_prompt_says_the_familys_coordinates():
    assert "Coordinates are pixels of the screenshot." in system_prompt(
        FAMILIES["ui-tars-1.5"], "web", "")
    assert "Coordinates are 0-1000 relative to the screenshot." in system_prompt(
        FAMILIES["ui-tars"], "web", "")


@pytest.mark.parametrize("name, box, said", [
    ("qwen3-vl", [1200, 100, 1300, 200], "the model's box [1200,100,1300,200] is outside the "
                                         "screen (its coordinates are 0-1000)"),
    ("auto-glm", [1200, 5], "the model's point [1200,5] is outside the screen (its coordinates "
                            "are 0-999)"),
    ("gpt", [1200, 100, 1300, 200], "the model's box [1200,100,1300,200] is outside the "
                                    "1000×800 screen"),
])
def test_a_box_off_the_screen_is_told_in_the_familys_terms(name, box, said):
    """A normalised box is not in pixels: "outside the 1000×800 screen" for a 0-1000 box of
    1200 sent the model looking for pixels."""
    with pytest.raises(OffImage) as off:
        to_rect(box, FAMILIES[name], (1000, 800))
    assert str(off.value) == said
