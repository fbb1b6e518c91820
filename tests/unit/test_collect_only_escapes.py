"""`farm run --collect-only` prints a case's name as the run's console does: a control
character in it shown as its escape (a name written "\\x1b[31m…" in YAML recoloured the CI log,
or worse, where the run's own lines were already escaped)."""

from __future__ import annotations

from tests.support.farm_cli import run_main

CASE = '''name: "evil \\x1b[31mred\\x1b[0m"
web:
  url: https://example.com
tasks:
  - name: t
    flow:
      - assertText: x
'''


def test_collect_only_shows_control_characters_escaped(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "evil.yaml").write_text(CASE)
    code, out, _ = run_main(monkeypatch, capsys, "run", tmp_path / "suite", "--collect-only")
    assert code == 0 and "\x1b" not in out
    assert "evil \\x1b[31mred\\x1b[0m" in out
