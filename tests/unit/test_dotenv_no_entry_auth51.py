"""A `.env` line that sets nothing (`bad line here`, no `=`) was skipped without a word, where
a line whose name is not ASCII got a warning. It gets one the same way, at its line, never
showing the line (it may be a secret written without `=`); `KEY: value` is still read."""

from __future__ import annotations

from farm.suite.loader import load_suites

CASE = ("name: c\nweb:\n  url: data:text/html,${USER_NAME}\ntasks:\n  - name: t\n"
        "    flow:\n      - sleep: 1\n")


def test_a_dotenv_line_with_no_equals_sign_is_warned_of(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("SHOP_USER=zed\nbad line here\n# a comment\n\n"
                                   "USER_NAME: ann\nPEM=\"a\nb\"\nsk-secret-abc\n")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(CASE)
    warnings: list[str] = []
    [suite] = load_suites(["s"], env={}, warnings=warnings)
    assert suite.cases[0].vars["USER_NAME"] == "ann"       # KEY: value is still read
    assert [w for w in warnings if w.startswith(".env")] == [
        ".env:2: this line sets no variable (expected NAME=value); skipped",
        ".env:8: this line sets no variable (expected NAME=value); skipped"]
    assert not any("sk-secret" in w or "bad line" in w for w in warnings)
