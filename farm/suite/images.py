"""Reference images of a ``{prompt, images}`` prompt (Midscene's "prompting with images").

Each image is ``{name, url}``; a local path (relative to the working directory, as Midscene
reads it) is read when the suite loads and kept as a ``data:`` URL, so the case carries it to
any worker; ``data:`` and ``http(s)://`` URLs pass as written (with
``convertHttpImage2Base64: true`` an http image is fetched and inlined when the step runs).
"""

from __future__ import annotations

import base64
import mimetypes
import os

from farm.suite.checks import Problems
from farm.suite.yamlpos import Node

MAX_IMAGE_BYTES = 5 * 1024 * 1024


def read_images(kind: str, node: Node | None, convert: Node | None,
                p: Problems) -> list[dict[str, str]]:
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
        name = p.text(fields.get("name"), f"{kind} image name", required=True, empty_ok=False)
        url = p.text(fields.get("url"), f"{kind} image url", required=True, empty_ok=False)
        if name is None or url is None:
            if "url" not in fields or "name" not in fields:
                p.add(item, f"{kind} image: expected both name: and url:")
            continue
        if url.startswith(("http://", "https://")):
            out.append({"name": name, "url": url, **({"fetch": "1"} if fetch else {})})
        elif url.startswith("data:image/"):
            out.append({"name": name, "url": url})
        else:
            inline = _local(kind, url, fields["url"], p)
            if inline:
                out.append({"name": name, "url": inline})
    return out


def _local(kind: str, path: str, at: Node, p: Problems) -> str | None:
    try:
        size = os.path.getsize(path)
        if size > MAX_IMAGE_BYTES:
            p.add(at, f"{kind} image {path!r}: {size} bytes, over the {MAX_IMAGE_BYTES} limit")
            return None
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        p.add(at, f"{kind} image {path!r}: cannot read it ({exc.strerror or exc}; paths are "
                  "relative to the working directory)")
        return None
    mime = mimetypes.guess_type(path)[0] or "image/png"
    if not mime.startswith("image/"):
        p.add(at, f"{kind} image {path!r}: not an image file")
        return None
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"
