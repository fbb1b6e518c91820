"""Screenshot helpers for prompts: data URLs, sizes, crop-and-upscale for deepLocate, and
whether the screen changed between two looks of the ai loop."""

from __future__ import annotations

import base64
import hashlib
import io
import struct
import threading
import zlib
from typing import TYPE_CHECKING

from farm.devices.base import Rect
from farm.errors import StepFailed

if TYPE_CHECKING:
    from PIL import Image

MAX_IMAGE_BYTES = 5 * 1024 * 1024     # a reference image, read from a file, a data: URL or http


def image_type(data: bytes) -> str | None:
    """The image type from the first bytes (what the model is told it is), None if none."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG header (no decoding); falls back to Pillow for others."""
    if png[:8] == b"\x89PNG\r\n\x1a\n":
        w, h = struct.unpack(">II", png[16:24])
        return w, h
    from PIL import Image
    return Image.open(io.BytesIO(png)).size


def data_url(png: bytes) -> str:
    mime = "image/png" if png[:4] == b"\x89PNG" else "image/jpeg"
    return f"data:{mime};base64," + base64.b64encode(png).decode()


def padded(png: bytes, block: int) -> bytes:
    """The image for a model that reads boxes in pixels of its image resized to a multiple
    of ``block`` (qwen2.5-vl: 28): padded with black on the right and bottom to that
    multiple, so the resize changes nothing and its pixels are the screenshot's (same
    origin; a box in the padding is off the screen). Unchanged when already a multiple."""
    if block <= 1:
        return png
    w, h = png_size(png)
    pw, ph = -(-w // block) * block, -(-h // block) * block
    if (pw, ph) == (w, h):
        return png
    from PIL import Image
    img = Image.open(io.BytesIO(png))
    canvas = Image.new(img.mode if img.mode in ("RGB", "RGBA", "L") else "RGB", (pw, ph))
    canvas.paste(img.convert(canvas.mode), (0, 0))
    out = io.BytesIO()
    canvas.save(out, format="PNG" if png[:4] == b"\x89PNG" else "JPEG")
    return out.getvalue()


def images_key(images: list[dict[str, str]] | None) -> str:
    """What a cache key adds for a prompt's reference images (name and a digest of each):
    an entry found with images never answers the same words with other images, or none."""
    if not images:
        return ""
    return " [images: " + ", ".join(
        f"{i['name']}#{hashlib.sha256(i['url'].encode()).hexdigest()[:12]}"
        for i in images) + "]"


def crop_upscale(png: bytes, area: Rect, margin: int = 32, factor: int = 2) -> tuple[bytes, Rect]:
    """Crop ``area`` plus ``margin`` (clamped to the image), upscale ×factor; return the new
    PNG and the crop rect in the original image (to map answers back)."""
    from PIL import Image
    img = Image.open(io.BytesIO(png))
    w, h = img.size
    x1, y1 = max(area.x - margin, 0), max(area.y - margin, 0)
    x2 = min(area.x + area.width + margin, w)
    y2 = min(area.y + area.height + margin, h)
    crop = img.crop((x1, y1, x2, y2)).resize(((x2 - x1) * factor, (y2 - y1) * factor))
    out = io.BytesIO()
    crop.save(out, format="PNG")
    return out.getvalue(), Rect(x=x1, y=y1, width=x2 - x1, height=y2 - y1)


def scale_rect(rect: Rect, sx: float, sy: float, dx: int = 0, dy: int = 0) -> Rect:
    return Rect(x=round(rect.x * sx) + dx, y=round(rect.y * sy) + dy,
                width=max(round(rect.width * sx), 1), height=max(round(rect.height * sy), 1))


# Recent frames by (crc32, length) of the PNG: a loop looking at an unchanged screen gets the
# same bytes again, and decoding a full PNG costs far more than hashing it.
# Shared by the devices' threads: the lock (the oldest frame's eviction, next(iter(...)),
# raised "dictionary changed size during iteration" when another device added one).
_FRAMES: dict[tuple[int, int], Image.Image] = {}
_FRAMES_LOCK = threading.Lock()


def grey_frame(png: bytes) -> Image.Image:
    """The screenshot in greyscale at full size, to tell whether the screen changed: a digit
    or a typed letter is a few pixels wide, which any thumbnail averages away."""
    key = (zlib.crc32(png), len(png))
    with _FRAMES_LOCK:
        cached = _FRAMES.get(key)
    if cached is not None:
        return cached
    from PIL import Image
    frame = Image.open(io.BytesIO(png)).convert("L")
    with _FRAMES_LOCK:
        while len(_FRAMES) >= 4:
            del _FRAMES[next(iter(_FRAMES))]
        _FRAMES[key] = frame
    return frame


_LEVELS = 24     # grey levels a pixel may move (scaling, encoder noise) and still be the same


def alike(a: Image.Image | None, b: Image.Image | None) -> bool:
    """Two frames show the same screen: no pixel moved by more than a few grey levels, or the
    pixels that did form one solid bar at least three times taller than wide and at most an
    eighth of the screen high (a text caret blinking). Anything else, a changed digit
    included, is a change: a false "unchanged" tells the model it missed and can fail a
    correct plan as stuck, a false "changed" only delays the stuck check."""
    if a is None or b is None or a.size != b.size:
        return False
    if a is b:
        return True
    from PIL import Image, ImageChops
    diff = ImageChops.difference(a, b)
    if diff.getbbox() is None:
        return True
    # max(0, diff - _LEVELS) with two whole-image operations as fast as the difference
    # (point() with a table takes several times as long on a full screen)
    moved = ImageChops.difference(diff, ImageChops.darker(diff, Image.new("L", a.size, _LEVELS)))
    bar = moved.getbbox()
    if bar is None:
        return True                 # only noise
    width, height = bar[2] - bar[0], bar[3] - bar[1]
    if not width * 3 <= height <= a.height // 8:
        return False
    solid = moved.crop(bar).point([0] + [255] * 255).histogram()[255]
    return solid >= 0.6 * width * height


def inline_image(image: dict[str, str]) -> dict[str, str]:
    """A reference image as the model gets it: http(s) images marked to be fetched
    (convertHttpImage2Base64) become data: URLs here."""
    if not image.get("fetch"):
        return image
    import urllib.request
    try:
        with urllib.request.urlopen(image["url"], timeout=20) as reply:
            data = reply.read(MAX_IMAGE_BYTES + 1)
            served = reply.headers.get_content_type()
    except OSError as exc:
        raise StepFailed(f"cannot fetch reference image {image['name']!r} "
                         f"({image['url']}): {exc}") from exc
    mime = image_type(data)     # the bytes decide, as for a file (a server may mislabel)
    if len(data) > MAX_IMAGE_BYTES or mime is None:
        raise StepFailed(f"reference image {image['name']!r} ({image['url']}) is not a PNG, "
                         f"JPEG, GIF or WebP image of at most 5 MB ({served}, "
                         f"{len(data)} bytes read)")
    return {"name": image["name"],
            "url": f"data:{mime};base64,{base64.b64encode(data).decode()}"}


BLACKOUT_MARGIN = 2     # CSS pixels a blacked-out box reaches past the text's own box


def blacked_out(image: bytes, boxes: list[list[float]], scale: float = 1.0,
                quality: int = 70) -> bytes:
    """``image`` (PNG or JPEG bytes) with each of ``boxes`` ([x, y, width, height] in CSS
    pixels; ``scale`` image pixels a CSS pixel) filled solid black, a few pixels past its
    edges: a secret the screen showed is not in the copy a report keeps or a model is sent.
    The same format back (a JPEG at ``quality``)."""
    if not boxes:
        return image
    from PIL import Image, ImageDraw
    img = Image.open(io.BytesIO(image))
    jpeg = not image.startswith(b"\x89PNG")
    if img.mode not in ("RGB", "RGBA", "L"):
        img = img.convert("RGB")
    draw = ImageDraw.Draw(img)
    m = BLACKOUT_MARGIN
    for x, y, w, h in boxes:
        draw.rectangle((int((x - m) * scale), int((y - m) * scale),
                        -int(-(x + w + m) * scale), -int(-(y + h + m) * scale)), fill="black")
    out = io.BytesIO()
    if jpeg:
        img.convert("RGB").save(out, format="JPEG", quality=quality)
    else:       # (the fastest deflate: a full-screen PNG at the default level takes ~30 ms)
        img.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def blacked_out_at(image: bytes, boxes: list[list[int]], screen: tuple[int, int]) -> bytes:
    """`blacked_out` for ``boxes`` in a device's own units (a phone's UI tree: Android's
    physical pixels, iOS's points) on a screen ``screen`` (width, height) of them, the image
    being that screen at any size: each box scaled to the image's pixels each way."""
    if not boxes:
        return image
    w, h = png_size(image)
    sx, sy = w / max(screen[0], 1), h / max(screen[1], 1)
    ratio = sy / sx
    return blacked_out(image, [[x, y * ratio, bw, bh * ratio] for x, y, bw, bh in boxes], sx)
