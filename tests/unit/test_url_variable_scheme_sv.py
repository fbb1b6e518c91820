"""A ``url: ${APP_URL}/index.html`` whose variable holds an address with no scheme
(``APP_URL=127.0.0.1:34313``) is refused at load, at the url's file:line, naming the variable:
the run opened it as a file beside the case ("cannot open file:///…/127.0.0.1%3A34313/…: no
such file") with no word of the missing http://, where a literal ``url: 127.0.0.1:…`` was
refused at load. A secret's value is never shown."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main


def _collect(tmp_path: Path, monkeypatch, capsys, dotenv: str = "", env: dict | None = None,
             url: str = "${APP_URL}/index.html", extra: str = ""):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(f"name: c\n{extra}web:\n  url: {url}\ntasks:\n"
                                           "  - name: t\n    flow:\n      - sleep: 1\n")
    (tmp_path / ".env").write_text(dotenv)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    return run_main(monkeypatch, capsys, "run", "s", "--collect-only")


def test_a_dotenv_value_with_no_scheme_is_refused_at_load(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys, "APP_URL=127.0.0.1:34313\n")
    assert code == 4
    assert err.splitlines()[1] == (
        "  s/c.yaml:3:8: web.url: '${APP_URL}/index.html': ${APP_URL} = '127.0.0.1:34313' (from "
        ".env) has no scheme, so the address would be opened as a file path relative to the "
        "case file; set APP_URL=http://127.0.0.1:34313 (or https://) for a web address")


def test_localhost_and_a_port_from_the_environment(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys, env={"APP_URL": "localhost:3999"})
    assert code == 4 and "${APP_URL} = 'localhost:3999' (from the environment) has no " \
                         "scheme" in err and "set APP_URL=http://localhost:3999" in err


def test_a_credential_s_value_is_not_shown(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys,
                              env={"SHOP_TOKEN": "127.0.0.1:8080/tok-s9v-secret"},
                              url="${SHOP_TOKEN}/index.html")
    assert code == 4 and "tok-s9v-secret" not in out + err
    assert "${SHOP_TOKEN} (from the environment) has no scheme" in err
    assert "set SHOP_TOKEN=http://… (or https://)" in err


def test_the_first_variable_of_several_and_a_literal_host(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys, "HOST=127.0.0.1\nPORT=8080\n",
                              url="${HOST}:${PORT}/index.html")
    assert code == 4 and "${HOST} = '127.0.0.1' (from .env) has no scheme" in err
    (tmp_path / "y").mkdir()
    code, out, err = _collect(tmp_path / "y", monkeypatch, capsys, "PORT=8080\n",
                              url="127.0.0.1:${PORT}/index.html")
    assert code == 4 and "once ${PORT} is substituted it is '127.0.0.1:8080/index.html', " \
                         "which has no scheme" in err


def test_a_vars_value_and_a_good_address(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys,
                              extra="vars:\n  APP_URL: www.example.test\n")
    assert code == 4 and "${APP_URL} = 'www.example.test' (from vars:)" in err
    (tmp_path / "y").mkdir()
    code, out, err = _collect(tmp_path / "y", monkeypatch, capsys,
                              "APP_URL=http://127.0.0.1:34313\n")
    assert code == 0, err


def test_a_declared_secret_and_a_file_path_are_left_to_the_run(tmp_path, monkeypatch, capsys):
    code, out, err = _collect(tmp_path, monkeypatch, capsys, env={"APP_URL": "127.0.0.1:1"},
                              extra="secrets: [APP_URL]\n")
    assert code == 0, err
    (tmp_path / "y").mkdir()
    code, out, err = _collect(tmp_path / "y", monkeypatch, capsys, "PAGES=site\n",
                              url="${PAGES}/index.html")
    assert code == 0, err
