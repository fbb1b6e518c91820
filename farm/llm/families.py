"""Model families: which grammar a model answers in, how its coordinates read, its loop cap.

Coordinates (REFERENCE.md §3) come back in the family's own space; `to_rect` maps them to
pixels of the screenshot the model saw with round(v·(size−1)/N), puts the corners in order
and clips to the image; a box with no pixel on the image, or whose middle (the point a tap
goes to) is off it, is no location (OffImage). Pure functions: property-tested with
hypothesis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from farm.devices.base import Rect

Grammar = Literal["xml", "autoglm", "uitars"]


@dataclass(frozen=True)
class Family:
    name: str
    grammar: Grammar = "xml"
    scale: int | None = None          # None: absolute pixels of the image sent
    order: Literal["xy", "yx"] = "xy"  # "yx": [ymin, xmin, ymax, xmax] (gemini)
    loop_cap: int = 20
    pad: int = 0                       # images sent padded (right, bottom) to a multiple of this
    variant_of: str | None = None      # a version of another family's model, listed under it


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("gpt"),
    # pixels of the image padded to ×28 (its own resize then changes nothing): same origin
    Family("qwen2.5-vl", pad=28),
    Family("qwen2-vl", scale=1000),      # Qwen2-VL: 0-1000 (its 2.5 went to pixels)
    Family("qwen3-vl", scale=1000),
    Family("gemini", scale=1000, order="yx"),
    Family("doubao", scale=1000),
    Family("glm-v", scale=1000),
    Family("ui-tars", grammar="uitars", scale=1000, loop_cap=40),       # 1.0, the API models
    # UI-TARS-1.5 open weights: pixels of its image resized to ×28, so it is sent one already
    # padded to ×28 (as qwen2.5-vl) and its pixels are the screenshot's
    Family("ui-tars-1.5", grammar="uitars", loop_cap=40, pad=28, variant_of="ui-tars"),
    Family("auto-glm", grammar="autoglm", scale=999, loop_cap=100),
)}

ALIASES = {"openai": "gpt", "claude": "gpt", "anthropic": "gpt", "qwen2.5": "qwen2.5-vl",
           "qwen-vl": "qwen2.5-vl", "qwen3": "qwen3-vl", "vlm-ui-tars": "ui-tars",
           "uitars": "ui-tars", "uitars-1.5": "ui-tars-1.5", "autoglm": "auto-glm",
           "glm": "glm-v"}


def family_named(name: str) -> Family:
    """The family called ``name`` (any case, or an alias); ValueError naming the nearest
    family and every known one for a name no family has (``qwen3vl``)."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in FAMILIES:
        return FAMILIES[key]
    import difflib
    close = difflib.get_close_matches(key, [*FAMILIES, *ALIASES], n=1)
    meant = f" (did you mean {ALIASES.get(close[0], close[0])!r}?)" if close else ""
    known = ", ".join(n for n, f in FAMILIES.items() if f.variant_of is None)
    raise ValueError(f"unknown model family {name!r}{meant}; known: {known}")


def family_for(name: str | None, model: str | None = None) -> Family:
    """The family named ``name``, else guessed from the model string, else ``gpt``."""
    if name:
        return family_named(name)
    m = (model or "").lower()
    for needle, fam in (("ui-tars-1.5", "ui-tars-1.5"), ("uitars-1.5", "ui-tars-1.5"),
                        ("ui-tars", "ui-tars"), ("uitars", "ui-tars"), ("autoglm", "auto-glm"),
                        ("auto-glm", "auto-glm"), ("qwen3", "qwen3-vl"), ("qwen2-vl", "qwen2-vl"),
                        ("qwen2vl", "qwen2-vl"), ("qwen", "qwen2.5-vl"),
                        ("gemini", "gemini"), ("doubao", "doubao"), ("glm", "glm-v")):
        if needle in m:
            return FAMILIES[fam]
    return FAMILIES["gpt"]


class OffImage(ValueError):
    """The model's box (or point) has no pixel in common with the image it was given, or
    (``mostly``) its middle is off it (a box 95% below the screenshot's edge): it is not a
    location. A box with its middle on the image is clipped to the overlap instead."""

    def __init__(self, values: Sequence[float], image_size: tuple[int, int],
                 scale: int | None = None, mostly: bool = False) -> None:
        self.box = "[" + ",".join(f"{v:g}" for v in values) + "]"
        self.image_size = image_size
        what = "box" if len(values) == 4 else "point"
        # a normalised box is not in pixels: say what it is read against
        where = (f"{image_size[0]}×{image_size[1]} screen" if scale is None
                 else f"screen (its coordinates are 0-{scale})")
        if mostly:
            super().__init__(f"the model's {what} {self.box} is mostly outside the {where}: "
                             "its middle is off it")
        else:
            super().__init__(f"the model's {what} {self.box} is outside the {where}")


def _px(v: float, size: int, scale: int | None) -> int:
    return round(v if scale is None else v * (size - 1) / scale)


def _axis(v: float, size: int, scale: int | None) -> int:
    return min(max(_px(v, size, scale), 0), size - 1)


def _on_image(values: Sequence[float], xs: Sequence[float], ys: Sequence[float],
              family: Family, image_size: tuple[int, int]) -> None:
    """OffImage unless the box spanning ``xs`` × ``ys`` overlaps the image with its middle:
    clipping a box mostly outside would tap the strip of it on the image's edge, where the
    model meant a point it did not see."""
    w, h = image_size
    px = sorted(_px(v, w, family.scale) for v in xs)
    py = sorted(_px(v, h, family.scale) for v in ys)
    if px[-1] < 0 or px[0] > w - 1 or py[-1] < 0 or py[0] > h - 1:
        raise OffImage(values, image_size, family.scale)
    if not (0 <= px[0] + px[-1] <= 2 * (w - 1) and 0 <= py[0] + py[-1] <= 2 * (h - 1)):
        raise OffImage(values, image_size, family.scale, mostly=True)


POINT_BOX = 4   # a point becomes a box this many pixels either side of it


def to_rect(values: Sequence[float], family: Family, image_size: tuple[int, int]) -> Rect:
    """Map a model box (4 numbers) or point (2 numbers) to a Rect in image pixels.

    Raises ValueError for anything else (wrong count, NaN), and OffImage (a ValueError) for
    a box or point entirely outside the image, or a box whose middle is: callers turn it into
    feedback or a miss.
    """
    w, h = image_size
    nums = [float(v) for v in values]
    if any(v != v or v in (float("inf"), float("-inf")) for v in nums):
        raise ValueError(f"coordinates are not finite: {list(values)}")
    if len(nums) == 2:
        x, y = (nums[1], nums[0]) if family.order == "yx" else (nums[0], nums[1])
        _on_image(nums, (x,), (y,), family, image_size)
        cx, cy = _axis(x, w, family.scale), _axis(y, h, family.scale)
        x1, y1 = max(cx - POINT_BOX, 0), max(cy - POINT_BOX, 0)
        x2, y2 = min(cx + POINT_BOX, w - 1), min(cy + POINT_BOX, h - 1)
        return Rect(x=x1, y=y1, width=x2 - x1 + 1, height=y2 - y1 + 1)
    if len(nums) != 4:
        raise ValueError(f"expected a box [x1, y1, x2, y2] or a point [x, y], got {list(values)}")
    if family.order == "yx":
        y1, x1, y2, x2 = nums
    else:
        x1, y1, x2, y2 = nums
    _on_image(nums, (x1, x2), (y1, y2), family, image_size)
    ax, bx = sorted((_axis(x1, w, family.scale), _axis(x2, w, family.scale)))
    ay, by = sorted((_axis(y1, h, family.scale), _axis(y2, h, family.scale)))
    return Rect(x=ax, y=ay, width=bx - ax + 1, height=by - ay + 1)


def from_rect(rect: Rect, family: Family, image_size: tuple[int, int]) -> list[int]:
    """The inverse of `to_rect` for a box: what this family would answer for ``rect``
    (used by tests, benchmarks and prompts that show a search area)."""
    w, h = image_size

    def inv(px: int, size: int) -> int:
        return px if family.scale is None else round(px * family.scale / max(size - 1, 1))

    x1, y1 = inv(rect.x, w), inv(rect.y, h)
    x2, y2 = inv(rect.x + rect.width - 1, w), inv(rect.y + rect.height - 1, h)
    return [y1, x1, y2, x2] if family.order == "yx" else [x1, y1, x2, y2]


def coordinate_hint(family: Family) -> str:
    """One sentence for prompts: how to write a box."""
    shape = "[ymin, xmin, ymax, xmax]" if family.order == "yx" else "[x1, y1, x2, y2]"
    space = ("absolute pixels of the screenshot" if family.scale is None
             else f"coordinates normalised to 0-{family.scale}")
    return f"Boxes are {shape} in {space}."
