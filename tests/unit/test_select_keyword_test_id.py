"""`farm run -k` looks in a case's file path in the suite, as README says and --collect-only
shows, also when ``agent.testId`` gives the case another id: ``-k mobile/`` left out
suite/mobile/login.yaml with ``testId: Login Flow`` (id ``suite/Login Flow``), so a folder or
file name selected nothing. Through the command, in-process (--collect-only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = """\
{agent}web:
  url: about:blank
tasks:
  - name: t
    flow:
      - javascript: "1"
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(__import__("os").environ):
        if key.startswith("FARM_") or key == "CELERY_BROKER_URL":
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _write(folder: Path, rel: str, agent: str = "") -> None:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CASE.format(agent=agent))


def _collected(monkeypatch, capsys, expr: str) -> list[str]:
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only", "-k", expr)
    assert code in (0, 5) and "Traceback" not in err, err
    return sorted(line.split("  ")[0] for line in out.splitlines()
                  if not line.startswith(("farm:", "deselected:")))


@pytest.mark.parametrize("expr, selected", [
    ("mobile/", ["s/Login Flow"]),                  # its folder in the suite
    ("mobile/login", ["s/Login Flow"]),             # its file, as --collect-only shows it
    ("login and flow", ["s/Login Flow"]),           # its id
    ("not mobile", ["s/home"]),
    ("yaml", []),                                   # never the suffix every file has
])
def test_k_matches_a_test_id_case_by_its_file_path(here, monkeypatch, capsys, expr, selected):
    _write(here / "s", "mobile/login.yaml", agent="agent:\n  testId: Login Flow\n")
    _write(here / "s", "home.yaml")
    assert _collected(monkeypatch, capsys, expr) == selected
