"""The OCR engine's start (the import and its models' load, 2-4 s) is said once in farm.log
at INFO, with the seconds it took: a step that paid it is slow for a reason the log names."""

from __future__ import annotations

import logging
import sys
import types

from farm.agent import ocr


def test_the_ocr_engine_s_first_load_is_logged_once_web49(monkeypatch, caplog):
    started = []
    fake = types.ModuleType("rapidocr_onnxruntime")
    fake.RapidOCR = lambda: started.append(1) or object()
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", fake)
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "_broken", None)
    with caplog.at_level(logging.INFO, logger="farm.agent.ocr"):
        first = ocr.engine()
        assert ocr.engine() is first and started == [1]
    said = [r.getMessage() for r in caplog.records if r.name == "farm.agent.ocr"]
    assert len(said) == 1, said
    assert said[0].startswith("loading the OCR engine (first use): ") and \
        said[0].endswith(" s"), said
    assert caplog.records[0].levelno == logging.INFO
