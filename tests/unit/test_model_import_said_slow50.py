"""litellm's import takes seconds (10+ on a loaded machine), and a run with a model sat silent
through it after its ``farm: model from …`` line: a run begins it in the background as it
starts, and whoever waits for it longer than a moment says so, once: "loading the model
library (litellm)…" (the run's model check on the console; a client in farm.log)."""

from __future__ import annotations

import logging
import threading

import farm.llm.litellm_client as lc


def _slow_import(monkeypatch, done: threading.Event) -> None:
    """An import still under way (until ``done``), as `start_import` leaves one."""
    loader = threading.Thread(target=lambda: done.wait(30), daemon=True)   # (never a hang)
    monkeypatch.setattr(lc, "_loader", loader)
    monkeypatch.setattr(lc, "_load_said", False)
    monkeypatch.setattr(lc, "LOAD_SAID_AFTER_S", 0.0)
    lc._loader.start()


def test_a_wait_for_the_model_library_is_said_once_slow50(monkeypatch):
    done, said = threading.Event(), []
    _slow_import(monkeypatch, done)

    def say(text: str) -> None:
        said.append(text)
        done.set()                  # (the import ends once the wait is said)
    lib = lc._litellm(say)
    assert said == ["loading the model library (litellm)…"]
    assert lib.suppress_debug_info is True and lib.telemetry is False
    assert logging.getLogger("LiteLLM").level == logging.WARNING
    assert lc._litellm(say) is lib and len(said) == 1


def test_a_client_s_wait_is_said_in_farm_log_slow50(monkeypatch, caplog):
    done = threading.Event()
    _slow_import(monkeypatch, done)
    caplog.set_level(logging.INFO, logger="farm.llm")
    caplog.handler.addFilter(lambda record: done.set() or True)
    lc._litellm()
    assert [r.getMessage() for r in caplog.records if r.name == "farm.llm"] == \
        ["loading the model library (litellm)…"]


def test_a_run_with_a_model_begins_the_import_as_it_starts_slow50(monkeypatch):
    from farm import session
    from farm.config import Settings
    begun: list[bool] = []
    monkeypatch.setattr(lc, "start_import", lambda: begun.append(True))
    session._start_model_import(Settings(model="openai/gpt-4o"))
    session._start_model_import(Settings())
    assert begun == [True]
