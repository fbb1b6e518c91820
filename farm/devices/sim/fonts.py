"""The font the simulators draw their own overlays' text in (an iPhone's alert: a page's
``alert("删除成功")`` is its title; Android's permission dialog): Pillow's built-in font has
no Chinese, Japanese or Korean glyphs, and drew each such character as an empty box. Text
with a character beyond it is drawn in a CJK font when one is installed (fontconfig's choice
for such a character: fonts-wqy-zenhei, Noto CJK, ...), else as before.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from typing import Any

# where the usual packages put one, when fontconfig's fc-list is not there to ask
CJK_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/wqy-zenhei/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/System/Library/Fonts/PingFang.ttc",
)
LATIN_END = 0x250       # the built-in font draws Latin (and its extensions) up to here


@functools.cache
def cjk_file() -> str | None:
    """An installed font file that has CJK glyphs (中), or None."""
    fc_list = shutil.which("fc-list")
    if fc_list:
        try:
            listed = subprocess.run([fc_list, ":charset=4e2d", "file"], capture_output=True,
                                    text=True, timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            listed = ""
        files = sorted(line.rstrip(": \n") for line in listed.splitlines() if line.strip())
        # (a variable or bitmap font's first face draws as well as any: the first listed)
        usable = [f for f in files if f.lower().endswith((".ttc", ".ttf", ".otf"))]
        if usable:
            return usable[0]
    return next((f for f in CJK_FILES if os.path.exists(f)), None)


def font_for(text: str, size: int) -> Any:
    """A Pillow font of ``size`` px that draws ``text``: the built-in one for Latin text,
    a CJK font (`cjk_file`) for text with any character beyond it when one is installed."""
    from PIL import ImageFont

    path = None if all(ord(c) < LATIN_END for c in text) else cjk_file()
    if path is None:
        return ImageFont.load_default(size=size)
    try:
        return ImageFont.truetype(path, size)
    except OSError:         # (a file Pillow's FreeType cannot read)
        return ImageFont.load_default(size=size)
