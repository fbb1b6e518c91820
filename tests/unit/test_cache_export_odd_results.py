"""`farm cache export DIR` where DIR/results.json is JSON but not a run's results (another
program's, or hand-edited: a list, 'cases' a string, a case that is not an object): it ended
in "farm: internal error: AttributeError" (exit 3, a traceback file); it now names the file and
what is wrong with it, or that the run has no passed case (exit 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm


@pytest.mark.parametrize("text, said", [
    ('{"cases": "demo/login"}', "{run}/results.json: cannot read it as a run's results "
                                "(its 'cases' is not a list)"),
    ("[]", "{run}: no passed case to export"),
    ('{"cases": [1, null, "x"]}', "{run}: no passed case to export"),
])
def test_a_results_json_that_is_no_run_s_is_named(tmp_path: Path, monkeypatch, capsys,
                                                   text: str, said: str):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text(text)
    monkeypatch.chdir(tmp_path)
    code, out, err = farm(monkeypatch, capsys, "cache", "export", str(run))
    assert (code, out, err) == (4, "", "farm: error: " + said.format(run=run) + "\n")
    assert not (tmp_path / ".farm").exists()        # no last-error.log: no internal error


CASE = """\
name: One
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - aiTap: Sign in
"""


def test_a_hand_edited_store_record_is_passed_over(tmp_path: Path, monkeypatch, capsys):
    """cache-store.json naming its store by something that is no path ({"sqlite": 5}): the
    export looks for the store as for a run that recorded none (an internal error before)."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE)
    from farm.cache.keys import Namespace
    from farm.cache.sqlite_store import SqliteStore
    store = SqliteStore(tmp_path / ".farm" / "cache.db")
    store.put(Namespace("s/one", "web").key("locate", "Sign in", 0),
              {"type": "locate", "prompt": "Sign in", "xpaths": ["//*[@id='go']"],
               "updated": 1})
    store.close()
    run = tmp_path / ".farm" / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "results.json").write_text(
        '{"cases": [{"case_id": "s/one", "file": "s/one.yaml", "status": "passed"}]}')
    (run / "cache-store.json").write_text('{"sqlite": 5}')
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    code, out, err = farm(monkeypatch, capsys, "cache", "export", str(run), "-o", "x.yaml")
    assert (code, err) == (0, ""), err
    assert "xpath: //*[@id='go']" in (tmp_path / "x.yaml").read_text()
