"""Reference images of a ``{prompt, images}`` prompt (Midscene's "prompting with images").

Each image is ``{name, url}``. A local path is relative to the YAML file (a path that is not
there but is under the working directory, as Midscene reads it, is taken from there); it is
read when the suite loads, checked to be an image of at most 5 MB, and kept as a ``data:`` URL,
so the case carries it to any worker. ``data:image/...`` URLs are checked the same way;
``http(s)://`` URLs pass as written (with ``convertHttpImage2Base64: true`` the image is
fetched and inlined when the step runs). Where the images go: farm.agent (the planner, the
locate model, insight requests; the word-matching locate tiers skip such a prompt).
"""

from __future__ import annotations

import base64
import binascii
import os
import stat
from pathlib import Path

from farm.agent.images import MAX_IMAGE_BYTES, image_type
from farm.suite.checks import Problems
from farm.suite.yamlpos import Node, not_regular



def read_images(kind: str, node: Node | None, convert: Node | None,
                p: Problems, base: Path | None = None) -> list[dict[str, str]]:
    if node is None or node.is_null:
        return []
    items = p.sequence(node, f"{kind} images", "a list of `{name, url}` images")
    fetch = bool(p.boolean(convert, f"{kind} convertHttpImage2Base64"))
    out = []
    for item in items or []:
        fields = p.mapping(item, f"{kind} image", "a mapping with name: and url:")
        if fields is None:
            continue
        p.keys(item, {"name", "url"}, f"{kind} image")
        # (one missing is said once, below, at the image: a missing key has no line)
        name = p.text(fields["name"], f"{kind} image name", required=True,
                      empty_ok=False) if "name" in fields else None
        url = p.text(fields["url"], f"{kind} image url", required=True,
                     empty_ok=False) if "url" in fields else None
        if name is None or url is None:
            if "url" not in fields or "name" not in fields:
                p.add(item, f"{kind} image: expected both name: and url:")
            continue
        if url.startswith(("http://", "https://")):
            out.append({"name": name, "url": url, **({"fetch": "1"} if fetch else {})})
        elif url.startswith("data:"):
            if _data_url(kind, url, fields["url"], p):
                out.append({"name": name, "url": url})
        else:
            inline = _local(kind, url, _where(url, base), fields["url"], p)
            if inline:
                out.append({"name": name, "url": inline})
    return out


def _where(url: str, base: Path | None) -> str:
    """The file a local image path names: beside the YAML file first, else (Midscene's
    reading) under the working directory."""
    if base is None or os.path.isabs(url):
        return url
    here = base / url
    return str(here) if os.path.exists(here) or not os.path.exists(url) else url


def _local(kind: str, url: str, path: str, at: Node, p: Problems) -> str | None:
    """The image file at ``path`` (``url`` as the YAML wrote it) as a data: URL."""
    try:
        info = os.stat(path)
        if (what := not_regular(info)) and not stat.S_ISDIR(info.st_mode):
            p.add(at, f"{kind} image {url!r}: {what}, not an image file ({path})")
            return None     # (a FIFO's open would wait for a writer, /dev/zero never ends)
        if info.st_size > MAX_IMAGE_BYTES:
            p.add(at, f"{kind} image {url!r}: {info.st_size} bytes, over the {MAX_IMAGE_BYTES} "
                      "limit")
            return None
        with open(path, "rb") as f:
            data = f.read(MAX_IMAGE_BYTES + 1)
        if len(data) > MAX_IMAGE_BYTES:         # (grown since its stat, or one of /proc's)
            p.add(at, f"{kind} image {url!r}: over the {MAX_IMAGE_BYTES} bytes limit")
            return None
    except OSError as exc:
        p.add(at, f"{kind} image {url!r}: cannot read it ({exc.strerror or exc}: {path}; "
                  "paths are relative to the YAML file)")
        return None
    mime = image_type(data)
    if mime is None:
        p.add(at, f"{kind} image {url!r}: not a PNG, JPEG, GIF or WebP image")
        return None
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def _data_url(kind: str, url: str, at: Node, p: Problems) -> bool:
    """A ``data:`` URL holds a base64 image of at most MAX_IMAGE_BYTES."""
    head, _, payload = url.partition(",")
    if not head.startswith("data:image/") or not head.endswith(";base64"):
        p.add(at, f"{kind} image: expected a data:image/...;base64, URL, got {head[:40]!r}")
        return False
    if len(payload) * 3 // 4 > MAX_IMAGE_BYTES:
        p.add(at, f"{kind} image: the data: URL holds over {MAX_IMAGE_BYTES} bytes")
        return False
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        p.add(at, f"{kind} image: the data: URL is not valid base64")
        return False
    if image_type(data) is None:
        p.add(at, f"{kind} image: the data: URL does not hold a PNG, JPEG, GIF or WebP image")
        return False
    return True
