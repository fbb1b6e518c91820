"""rapidocr-onnxruntime has no release for Python 3.13 (pyproject installs it only below):
without it the OCR tier says once, plainly, that it is unavailable, and reads nothing."""

from __future__ import annotations

import logging
import sys

from farm.agent import ocr


def test_a_missing_rapidocr_is_one_plain_warning_and_no_reading_pkg49(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)     # not installed
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "_broken", None)
    with caplog.at_level(logging.WARNING, logger="farm.agent.ocr"):
        assert ocr.engine() is None
        assert ocr.read_lines(b"not read") == []
        assert ocr.engine() is None
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1, said
    assert said[0].startswith("OCR tier unavailable (ModuleNotFoundError: ")
    assert "rapidocr_onnxruntime" in said[0] and "locating by screen text is off" in said[0]
    assert not any(r.exc_info for r in caplog.records)
