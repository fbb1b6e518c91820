"""Masking that would surprise is said before the run, by name and place, never by value: a
secret whose value the steps' own text holds ("Released in 2026 edition" with PIN=2026: the
step reads "Released in *** edition" in every output), and a credential-named variable a step
types whose value is too short to be masked everywhere (it shows in clear)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli

pytestmark = pytest.mark.integration

PAGE = "<!doctype html><html><body><h1>Shop</h1><input aria-label='Pin'></body></html>"
CASE = """name: pin
web:
  url: ./app/index.html
secrets: [S43_PIN]
tasks:
  - name: t
    flow:
      - assertNoText: Released in 2026 edition
      - aiInput: Pin
        value: ${S43_DB_PASSWORD}
"""


def test_surprising_masking_is_said_before_the_run(tmp_path: Path, farm: FarmCli):
    suite = tmp_path / "s43w"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(PAGE)
    (suite / "pin.yaml").write_text(CASE)
    proc = farm.run("run", suite, "--no-progress", "--report-dir", tmp_path / "r",
                    S43_PIN="2026", S43_DB_PASSWORD="sh0rt7x")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    warnings = [ln for ln in proc.stdout.splitlines() if ln.startswith("farm: warning: ")]
    assert any(w.startswith("farm: warning: secret ${S43_PIN}'s value also stands in 1 step "
                            "text of this suite (") and "pin.yaml:8)" in w for w in warnings), \
        proc.stdout
    assert any(w.startswith("farm: warning: ${S43_DB_PASSWORD} is not masked: its name marks a "
                            "credential, but its value has 7 characters") for w in warnings), \
        proc.stdout
    assert "sh0rt7x" not in "\n".join(warnings) and "2026" not in "\n".join(warnings)
