"""``url: ${APP_URL}/x`` with ``APP_URL=user:<password>@127.0.0.1:18765`` (credentials, no
scheme) is refused at load as ``APP_URL=127.0.0.1:18765`` is: ``user:`` read as a scheme let it
through, and the run opened it as a file beside the case. The password is never shown."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main

PASSWORD = "Pw0-sec51-zeta"


def _collect(tmp_path: Path, monkeypatch, capsys, dotenv: str):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text("name: c\nweb:\n  url: ${APP_URL}/x\ntasks:\n"
                                           "  - name: t\n    flow:\n      - sleep: 1\n")
    (tmp_path / ".env").write_text(dotenv)
    monkeypatch.chdir(tmp_path)
    return run_main(monkeypatch, capsys, "run", "s", "--collect-only")


def test_user_and_password_without_a_scheme_is_refused_at_load(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys,
                              f"APP_URL=user:{PASSWORD}@127.0.0.1:18765\n")
    assert code == 4, out + err
    assert err.splitlines()[1] == (
        "  s/c.yaml:3:8: web.url: '${APP_URL}/x': ${APP_URL} = 'user:***@127.0.0.1:18765' "
        "(from .env) has no scheme, so the address would be opened as a file path relative to "
        "the case file; set APP_URL=http://user:***@127.0.0.1:18765 (or https://) for a web "
        "address")
    assert PASSWORD not in out + err


def test_with_its_scheme_it_loads(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys,
                              f"APP_URL=http://user:{PASSWORD}@127.0.0.1:18765\n")
    assert code == 0, out + err
    assert PASSWORD not in out + err
