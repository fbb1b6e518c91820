"""Unit tests run without the OCR engine: a FakeDevice's screenshots hold no text, and
starting onnxruntime on every zero-token miss would cost seconds per test. The OCR tier's
real engine is exercised by tests/integration/test_locator_tiers.py."""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.support.model_server import ModelServer


@pytest.fixture(autouse=True)
def _no_ocr_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    import farm.agent.ocr as ocr
    monkeypatch.setattr(ocr, "_broken", "not in unit tests")
    monkeypatch.setattr(ocr, "_engine", None)


@pytest.fixture
def server() -> Iterator[list[ModelServer]]:
    """The scripted model servers a test starts (`tests.support.model_server.serve`), stopped
    after it."""
    started: list[ModelServer] = []
    yield started
    for srv in started:
        srv.stop()
