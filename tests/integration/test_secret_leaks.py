"""A secret never reaches a run's files, not even encoded: a real `farm run` where the secret
sits in a `url:` query string that fails to load and in `javascript` outputs and errors that
URL-encode, base64-encode and JSON-escape it. A secret is a variable `secrets:` names, one
whose name marks a credential (API_TOKEN: no `secrets:` needed), or one read from the secrets
dir (FARM_SECRETS_DIR: whatever its name)."""

from __future__ import annotations

import base64
import html
import json
import socket
import subprocess
from pathlib import Path

import pytest
from urllib.parse import quote, quote_plus, unquote, unquote_plus

from tests.support.farm_cli import ROOT, FarmCli, by_name, results

# Space, quotes, &, =, /, +, ?, <, > and a non-ASCII letter: each encoding changes some of them.
SECRET = 'Tok en"&=/+?<x>ü9Zq'

FARM_YAML = f"""\
apps:
  shop:
    serve: {ROOT / "suites" / "demo" / "app"}
    env: FARM_DEMO_URL
"""

NAVIGATION = """\
name: secret in a url that does not load
web:
  url: http://127.0.0.1:${CLOSED_PORT}/?token=${TOKEN}
tasks:
  - name: never reached
    flow:
      - javascript: "1"
"""

JAVASCRIPT = """\
name: secret in javascript outputs and errors
web:
  url: ${FARM_DEMO_URL}/index.html?token=${TOKEN}
tasks:
  - name: outputs
    continueOnError: true
    flow:
      - javascript: location.href
      - javascript: "encodeURIComponent('${TOKEN}')"
      - javascript: "btoa('${TOKEN}')"
      - javascript: "JSON.stringify({token: '${TOKEN}'})"
      - javascript: "throw new Error(JSON.stringify('${TOKEN}'))"
  - name: after the error
    flow:
      - javascript: "throw new Error(encodeURIComponent('${TOKEN}') + ' ' + btoa('${TOKEN}'))"
"""


def encodings(secret: str) -> dict[str, str]:
    """What a page, Playwright or farm's own writers could turn the secret into."""
    forms = {
        "raw": secret,
        "quote": quote(secret, safe=""),
        "quote /": quote(secret),
        "quote_plus": quote_plus(secret),
        "json": json.dumps(secret)[1:-1],
        "json utf-8": json.dumps(secret, ensure_ascii=False)[1:-1],
        "json twice": json.dumps(json.dumps(secret))[1:-1],
        "html": html.escape(secret),
        "html numeric quotes": secret.replace("&", "&amp;").replace("<", "&lt;")
                                     .replace(">", "&gt;").replace('"', "&#34;"),
    }
    for charset in ("utf-8", "latin-1"):
        data = secret.encode(charset)
        forms[f"base64 {charset}"] = base64.b64encode(data).decode().rstrip("=")
        forms[f"base64url {charset}"] = base64.urlsafe_b64encode(data).decode().rstrip("=")
    return forms


@pytest.mark.parametrize("declared, variable, in_secrets_dir",
                         [("secrets: [TOKEN]\n", "TOKEN", False),
                          ("", "API_TOKEN", False),
                          ("", "DB_LOGIN", True)],
                         ids=["named in secrets", "a credential by its name",
                              "a file in the secrets dir"])
def test_no_file_of_the_run_holds_the_secret_in_any_encoding(farm: FarmCli, tmp_path: Path,
                                                             declared: str, variable: str,
                                                             in_secrets_dir: bool):
    given = {variable: SECRET}
    if in_secrets_dir:      # FARM_SECRETS_DIR: one file per variable, as Docker/Kubernetes mount
        secrets = tmp_path / "secrets"
        secrets.mkdir()
        (secrets / variable).write_text(SECRET + "\n", encoding="utf-8")
        given = {"FARM_SECRETS_DIR": str(secrets)}
    suite = tmp_path / "leaks"
    suite.mkdir()
    (suite / "farm.yaml").write_text(declared + FARM_YAML)
    for name, text in (("navigation", NAVIGATION), ("javascript", JAVASCRIPT)):
        (suite / f"{name}.yaml").write_text(text.replace("${TOKEN}", "${%s}" % variable))
    run_dir = tmp_path / "run"
    # Bound but not listening: connecting is refused, and no other test can take the port.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run_dir,
                        **given, CLOSED_PORT=str(closed.getsockname()[1]))
    assert done.returncode in (1, 3), done.stdout + done.stderr
    cases = by_name(results(run_dir))

    # The leaks were really provoked: the navigation error and each output are there.
    nav = cases["navigation"]
    message = (nav.get("error") or {}).get("message", "")
    assert nav["status"] in ("error", "failed") and "ERR_CONNECTION_REFUSED" in message, nav
    js = cases["javascript"]
    outputs = [step["output"] for step in js["steps"] if step["status"] == "passed"]
    errors = [step["error"] for step in js["steps"] if step.get("error")]
    assert js["status"] == "failed" and len(outputs) == 4 and len(errors) == 2, js["steps"]

    forms = encodings(SECRET)
    written = [p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"]
    assert {p.name for p in written} >= {"results.json", "results.jsonl", "junit.xml",
                                         "report.html", "farm.log"}
    for path in written:
        text = path.read_text(errors="replace")
        leaked = {name: form for name, form in forms.items() if form in text}
        assert not leaked, f"{path.name} holds the secret as {leaked}"
        # A browser encodes only some characters of a URL: decode rather than guess which.
        for decode in (unquote, unquote_plus, html.unescape):
            assert SECRET not in decode(text), f"{path.name} holds it {decode.__name__}d"
    assert SECRET not in done.stdout + done.stderr
    # ... because each was masked where it stood, the rest kept for debugging.
    assert "token=***" in message, message
    assert all("***" in text for text in outputs + errors), outputs + errors


def test_a_credential_in_dotenv_is_masked_though_no_case_refers_to_it(farm: FarmCli,
                                                                      tmp_path: Path):
    """Midscene's keys live in `.env`; a case that never writes `${API_TOKEN}` can still have a
    page or a script show its value, and it is masked as the same variable exported is."""
    value = "dotenv-held-9Zq7w"
    (tmp_path / ".env").write_text(f"API_TOKEN={value}\n")
    (tmp_path / "shows.yaml").write_text(
        "name: shows the token\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
        f"      - javascript: \"'token is ' + '{value[:8]}' + '{value[8:]}'\"\n"
        f"      - assertText: \"{value[:8]}\"\n")
    run_dir = tmp_path / "run"
    done = subprocess.run(farm.command("run", "shows.yaml", "--devices", "browser:1",
                                       "--report-dir", run_dir), cwd=tmp_path,
                          env=farm.env(), capture_output=True, text=True, timeout=240)
    assert done.returncode == 1, done.stdout + done.stderr     # the assertText really ran
    step = results(run_dir)["cases"][0]["steps"][0]
    assert step["output"] == "token is ***", step
    for path in (p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"):
        assert value not in path.read_text(errors="replace"), path.name
    assert value not in done.stdout + done.stderr
