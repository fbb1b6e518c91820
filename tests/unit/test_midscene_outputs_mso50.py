"""Midscene-compat outputs as a QA lead moving scripts to farm reads them: a case that never
ran writes no ``output:`` file (``{}`` read downstream as "ran, found nothing"; one an earlier
run left is removed), a batch ``summary:``'s ``files[]`` entries all carry ``error`` and
``reason``, and an insecure ``sameSite: no_restriction`` cookie, which Chromium drops without
a word, is set as Lax and named."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from farm.devices.web.context import cookie, cookie_notes
from farm.results import CaseError, CaseResult, RunSummary
from farm.run_outputs import _batch_summaries, _case_outputs
from farm.suite.loader import load_suites
from farm.suite.model import Batch

NEEDS_MODEL = "needs a model (set FARM_MODEL): aiQuery at line 6"


class _Plain:
    def resolve(self, text: str) -> str:
        return text

    def mask(self, text: str) -> str:
        return text


def _case(tmp_path: Path, output: Path):
    suite = tmp_path / "s"
    suite.mkdir(exist_ok=True)
    (suite / "a.yaml").write_text(f"web:\n  url: about:blank\n  output: {output}\ntasks:\n"
                                  "  - name: t\n    flow:\n      - aiQuery: the prices\n"
                                  "        name: prices\n")
    [case] = [c for s in load_suites([suite], env={}) for c in s.cases]
    return case


def _result(case_id: str, status: str, data=None, reason=None, error=None) -> CaseResult:
    return CaseResult(run_id="r", case_id=case_id, name=case_id, file="s/a.yaml",
                      platform="web", status=status, data=data or {}, reason=reason,
                      error=CaseError(kind="StepFailed", message=error) if error else None)


def test_a_skipped_case_writes_no_output_file_mso50(tmp_path, caplog):
    out = tmp_path / "out" / "a.json"
    case = _case(tmp_path, out)
    with caplog.at_level(logging.WARNING, logger="farm"):
        assert _case_outputs([case], [_result(case.id, "skipped", reason=NEEDS_MODEL)],
                             lambda c: _Plain()) == []
    assert not out.exists()
    assert f"{out} not written: its case did not run ({NEEDS_MODEL})" in caplog.text


def test_a_skipped_case_removes_an_earlier_runs_output_mso50(tmp_path, caplog):
    out = tmp_path / "out" / "a.json"
    out.parent.mkdir()
    out.write_text('{"prices": [3, 4]}')
    case = _case(tmp_path, out)
    with caplog.at_level(logging.WARNING, logger="farm"):
        assert _case_outputs([case], [_result(case.id, "skipped", reason=NEEDS_MODEL)],
                             lambda c: _Plain()) == []
    assert not out.exists()
    assert "the file an earlier run wrote there was removed" in caplog.text


def test_a_case_that_ran_still_writes_its_output_mso50(tmp_path):
    out = tmp_path / "out" / "a.json"
    case = _case(tmp_path, out)
    assert _case_outputs([case], [_result(case.id, "failed", error="no element")],
                         lambda c: _Plain()) == []
    assert json.loads(out.read_text()) == {}     # ran and kept nothing: as Midscene writes
    part = tmp_path / "out" / "b.json"
    case = _case(tmp_path, part)
    assert _case_outputs([case], [_result(case.id, "skipped", data={"title": "Shop"},
                                          reason=NEEDS_MODEL)], lambda c: _Plain()) == []
    assert json.loads(part.read_text()) == {"title": "Shop"}     # what did run, kept


def test_summary_files_have_the_same_keys_mso50(tmp_path):
    case = _case(tmp_path, tmp_path / "out" / "a.json")
    results = [_result("s/ok", "passed"), _result("s/bad", "failed", error="no element"),
               _result(case.id, "skipped", reason=NEEDS_MODEL)]
    batch = Batch(file="s/index.yaml", summary=str(tmp_path / "sum.json"),
                  case_ids=[r.case_id for r in results])
    assert _batch_summaries([batch], RunSummary(run_id="r", started="", cases=results),
                            [case]) == []
    data = json.loads((tmp_path / "sum.json").read_text())
    ok, bad, skipped = data["files"]
    assert set(ok) == set(bad) == set(skipped)
    assert (ok["reason"], ok["error"]) == (None, None)
    assert (bad["reason"], bad["error"]) == ("no element", "no element")
    assert (skipped["reason"], skipped["error"]) == (NEEDS_MODEL, None)
    assert data["results"][2]["output"] is None      # no output: file written for it


def test_insecure_no_restriction_cookie_is_set_as_lax_and_named_mso50():
    exported = {"name": "sid", "value": "abc", "domain": ".shop.test", "path": "/",
                "sameSite": "no_restriction", "secure": False, "httpOnly": True}
    assert cookie(exported)["sameSite"] == "Lax"
    [note] = cookie_notes([exported, {**exported, "name": "ok", "secure": True},
                           {**exported, "name": "lax", "sameSite": "lax"}])
    assert note.startswith("cookie 'sid' (.shop.test) set with SameSite=Lax, not its "
                           "sameSite 'no_restriction'")
    assert "SameSite=None on a cookie without secure: true" in note
    assert cookie({**exported, "secure": True})["sameSite"] == "None"
    assert cookie({**exported, "sameSite": "None"})["sameSite"] == "Lax"


def test_the_cookie_set_as_lax_is_said_with_the_first_step_and_in_farm_log_mso50(caplog):
    from types import SimpleNamespace

    from farm.devices.browser import BrowserDevice
    device = object.__new__(BrowserDevice)      # (no browser: the notes' path alone)
    device.name, device._step_said, device._stepped = "web-1", [], False
    device._went, device._dialogs, device._thrown, device._cut = [], ("dismiss", []), [], []
    device._marks = ((), ())
    target = SimpleNamespace(cookies=[{"name": "sid", "value": "abc", "domain": "shop.test",
                                       "sameSite": "no_restriction", "secure": False}])
    with caplog.at_level(logging.WARNING, logger="farm"):
        device._cookies_said(target)
    [note] = device.step_notes()
    assert note.startswith("cookie 'sid' (shop.test) set with SameSite=Lax")
    assert "web-1: cookie 'sid' (shop.test) set with SameSite=Lax" in caplog.text
