"""`farm.agent.ocr.warm_up` starts the OCR engine and makes its first reading before a case's
clock runs: the case that first reads the screen by OCR then pays neither (2-5 s, which timed
out a case with `timeout: 2`)."""

from __future__ import annotations

import io
import sys
import types

from PIL import Image

import farm.agent.ocr as ocr


class FakeRapidOCR:
    started = 0

    def __init__(self):
        FakeRapidOCR.started += 1
        self.readings = 0

    def __call__(self, image, use_cls=True):
        self.readings += 1
        return [([[0, 0], [40, 0], [40, 10], [0, 10]], "Pay now", 0.9)], None


def test_warm_up_starts_the_engine_and_reads_once_so_a_case_s_read_does_not(monkeypatch):
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime",
                        types.SimpleNamespace(RapidOCR=FakeRapidOCR))
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "_warm", False)
    monkeypatch.setattr(FakeRapidOCR, "started", 0)
    assert ocr.warm_up() is not None
    assert FakeRapidOCR.started == 1 and ocr._engine.readings == 1   # its first run, done
    assert ocr.warm_up() is None                                     # once per process
    png = io.BytesIO()
    Image.new("RGB", (40, 10), "white").save(png, "PNG")
    assert [line.text for line in ocr.read_lines(png.getvalue())] == ["Pay now"]
    assert FakeRapidOCR.started == 1


def test_warm_up_without_ocr_is_nothing():
    assert ocr.warm_up() is None          # (unit tests run with the engine unavailable)
