"""Secrets in what a step's output keeps: a runAdbShell output past 64K characters keeps its
tail, cut inside its last line when that line is longer (a JSON blob on one line). A secret the
cut fell inside left its end in the step's output, results.json and the report (the driver
cut it, and the mask later found no whole secret): now the output is masked before it is cut,
whatever form the secret has there (as written, base64, %-encoded). A failing command's
message, cut at 500 characters, left the start of a secret there."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

from tests.support.farm_cli import FarmCli, by_name, results

PW = "Qx7-s3cret-Pa55w0rd"               # secrets: [PW]
TOKEN = "tok/9Hq+Zr3Lm8Wd"                # API_TOKEN: a credential by its name
PW_B64 = base64.b64encode(PW.encode()).decode().rstrip("=")
TOKEN_URL = quote(TOKEN, safe="")         # tok%2F9Hq%2BZr3Lm8Wd

# /sdcard/y.txt: 256 lines of 254 "y"; `$(cat ...)` unquoted joins them with spaces into one
# word run of 65,279 characters. A line "S<form><pad> <joined>\n" then has len(pad) + 65,281
# characters after the form: a pad of 255 - r leaves the form's last r in the 64K tail.
JOINED = 256 * 255 - 1
MAKE = ("echo " + "y" * 254 + " > /sdcard/y.txt; "
        + "; ".join(["cat /sdcard/y.txt >> /sdcard/y.txt"] * 8))


def straddling(form: str, left: int, value: str = "") -> str:
    """A command printing one line whose 64K tail starts ``left`` characters before ``form``
    ends (``value``: what the form prints, when it is a reference)."""
    assert 0 < left < len(value or form)
    return f"echo S{form}{'z' * (255 - left)} $(cat /sdcard/y.txt)"


def test_a_secret_cut_by_a_long_output_s_tail_is_in_no_file_of_the_run(farm: FarmCli,
                                                                       tmp_path: Path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text("secrets: [PW]\n")
    (suite / "cut.yaml").write_text(f"""\
android:
tasks:
  - name: long lines
    continueOnError: true
    flow:
      - runAdbShell: "{MAKE}"
      - runAdbShell: "{straddling('${PW}', 8, PW)}"
        name: raw
      - runAdbShell: "{straddling(PW_B64, 10)}"
        name: b64
      - runAdbShell: "{straddling(TOKEN_URL, 9)}"
        name: url
      - runAdbShell: "echo {'w' * 490}${{PW}}; exit 3"
""")
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir", run_dir,
                    PW=PW, API_TOKEN=TOKEN)
    # (continueOnError: the later steps ran; the case fails, as Midscene's partialFailed)
    assert done.returncode == 1, done.stdout + done.stderr
    case = by_name(results(run_dir))["cut"]
    steps = case["steps"]
    assert [s["status"] for s in steps] == ["passed"] * 4 + ["failed"], steps

    # each output was cut, in its one long line, where the secret's form stood: masked there
    for name in ("raw", "b64", "url"):
        note, _, tail = case["data"][name].partition("\n")
        assert note.startswith("[farm: ") and " cut; the last " in note, note
        assert "***" in tail[:12] and tail.endswith("y" * 254 + "\n"), (name, tail[:40])
        assert len(tail) < 65_536 and tail.count("\n") == 1
    assert "exited 3: " + "w" * 490 + "***" in steps[4]["error"], steps[4]["error"]

    pieces = {"PW's end": PW[-8:], "PW's start": PW[:10], "base64's end": PW_B64[-10:],
              "url-encoded end": TOKEN_URL[-9:]}
    written = [p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"]
    assert {p.name for p in written} >= {"results.json", "report.html", "farm.log"}
    for path in written:
        text = path.read_text(errors="replace")
        leaked = {what: piece for what, piece in pieces.items() if piece in text}
        assert not leaked, f"{path.name} holds {leaked}"
    assert not any(piece in done.stdout + done.stderr for piece in pieces.values())


def test_a_wda_answer_is_masked_before_its_tail_is_cut(demo_app):
    """runWdaRequest's answer is cut in the thread that sends the request: the step's mask
    (`masking`, set by the action in the case's thread) still reaches it. A "secret" here is
    the 20 characters of the screenshot's base64 around the cut."""
    from farm.devices.base import OUTPUT_KEEP_CHARS, masking
    from farm.devices.ios import IosDevice
    from farm.devices.sim import IosSimulator
    from farm.suite.model import IosTarget

    hidden: list[str] = []

    def mask(text: str) -> str:
        cut = len(text) - OUTPUT_KEEP_CHARS
        hidden.append(text[cut - 10:cut + 10])
        return text[:cut - 10] + "***" + text[cut + 10:]

    pkg = "com.farm.demo.shop"
    with IosSimulator(1, {pkg: demo_app + "/"}) as ios:
        phone = IosDevice("i1", None, ios.urls[0])
        phone.open()
        try:
            phone.start_session(IosTarget(launch=pkg))
            with masking(mask):
                shot = phone.wda_request("GET", "/screenshot")
        finally:
            phone.close()
    [secret] = hidden          # (the mask saw the whole answer: one line of base64)
    note, _, tail = shot.partition("\n")
    assert note.startswith("[farm: ") and len(tail) == OUTPUT_KEEP_CHARS, note
    assert tail[7:10] == "***" and secret[10:] not in tail, tail[:20]


WEB_CASE = """\
web:
  url: data:text/html,<input type=password id=pw value="${PW}">
  output: DATA_PATH
tasks:
  - name: read it back
    flow:
      - javascript: "JSON.stringify({pad: 'x'.repeat(70000), pw: pw.value})"
        name: blob
      - aiQuery: "the password field's value and the page's title"
        name: read
      - aiString: "the password field's value"
        name: said
"""


def test_a_page_s_long_json_and_the_model_s_reading_of_a_password_are_masked(
        farm: FarmCli, tmp_path: Path, model_server):
    """Already safe (s41 audit): a web script's output is not cut (masked whole), and what the
    model read from the screen is masked in the step's output and the case's data file."""
    srv = model_server([json.dumps({"data": {"password": PW, "title": "Login"}}),
                        json.dumps({"data": "the value is " + PW})])
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text("secrets: [PW]\n")
    (suite / "web.yaml").write_text(WEB_CASE.replace("DATA_PATH", str(tmp_path / "data.json")))
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run_dir,
                    "--model", "openai/scripted-vlm", "--model-base-url", srv.base_url, PW=PW)
    assert done.returncode == 0, done.stdout + done.stderr
    case = results(run_dir)["cases"][0]
    assert json.loads(case["data"]["blob"])["pw"] == "***"
    assert case["data"]["read"] == {"password": "***", "title": "Login"}
    assert case["data"]["said"] == "the value is ***"
    written = [p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"]
    written.append(tmp_path / "data.json")
    for path in written:
        text = path.read_text(errors="replace")
        assert PW[:8] not in text and PW[-8:] not in text, path.name
