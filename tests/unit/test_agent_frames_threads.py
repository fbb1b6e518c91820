"""The ai loop's cache of decoded screens is shared by every device's thread: evicting the
oldest frame (``next(iter(frames))``) while another device's thread added one raised
"dictionary changed size during iteration", an ai step ending in an internal error on a run
with several devices. Every read and change of it now holds its lock."""

from __future__ import annotations

import io

from PIL import Image

from farm.agent import images


class _Guarded(dict):
    """The frames dict, failing any use made without the lock held."""

    def _check(self) -> None:
        assert images._FRAMES_LOCK.locked(), "the shared frames used without their lock"

    def get(self, *args):
        self._check()
        return super().get(*args)

    def __setitem__(self, key, value):
        self._check()
        super().__setitem__(key, value)

    def __delitem__(self, key):
        self._check()
        super().__delitem__(key)

    def __iter__(self):
        self._check()
        return super().__iter__()

    def pop(self, *args):
        self._check()
        return super().pop(*args)


def _png(shade: int) -> bytes:
    out = io.BytesIO()
    Image.new("L", (4, 4), shade).save(out, "PNG")
    return out.getvalue()


def test_the_shared_frames_are_used_under_their_lock(monkeypatch):
    monkeypatch.setattr(images, "_FRAMES", _Guarded())
    shots = [_png(shade) for shade in range(0, 120, 20)]     # more than are kept: evictions
    for png in shots + shots[-2:]:                            # and hits
        assert images.grey_frame(png).size == (4, 4)
    assert len(images._FRAMES) == 4
