"""farm's own model key is hidden in everything a run writes however short it is (a local
endpoint's 7-character key), wherever it was set: an endpoint may echo it into what the model
says, which becomes the step's and the case's reason. Real Chromium, the scripted model server
over HTTP, `farm run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.agent_scripts import xml
from tests.support.farm_cli import FarmCli, results
from tests.support.model_server import ModelServer

KEY = "Zq7xK9w"          # shorter than MIN_SECRET_CHARS, which credential-named variables need
CASE = """\
web:
  url: ./page.html
tasks:
  - name: t
    flow:
      - ai: type the note, then finish
"""


@pytest.mark.parametrize("where", ["environment", "farm.toml"])
def test_a_short_model_key_the_model_echoes_is_written_nowhere(farm: FarmCli, tmp_path: Path,
                                                               where: str) -> None:
    suite = tmp_path / "short"
    suite.mkdir()
    (suite / "page.html").write_text("<input aria-label='Note'>")
    (suite / "echo.yaml").write_text(CASE)
    script = [xml("Input", {"value": KEY, "locate": {"prompt": "Note"}}).replace(
                  "<thought>next</thought>", f"<thought>the key is {KEY}</thought>"),
              f'<thought>done {KEY}</thought><complete success="false">failed because {KEY}'
              "</complete>"]
    run_dir, state = tmp_path / "run", tmp_path / "state"
    work = tmp_path / "work"          # the current directory: its farm.toml is read
    work.mkdir()
    with ModelServer(script) as model:
        given = {"FARM_MODEL": "openai/scripted", "FARM_MODEL_BASE_URL": model.base_url,
                 "FARM_STATE_DIR": str(state)}
        if where == "farm.toml":
            (work / "farm.toml").write_text(f'model_api_key = "{KEY}"\n')
        else:
            given["FARM_MODEL_API_KEY"] = KEY
        done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run_dir,
                        "--cache", "off", cwd=work, **given)
        sent = [h.get("authorization", "") for h in model.headers]
    assert done.returncode == 1, done.stdout + done.stderr
    assert sent and all(h == f"Bearer {KEY}" for h in sent)     # the key was the one used
    case = results(run_dir)["cases"][0]
    assert case["error"]["message"].endswith("failed because ***"), case["error"]
    written = [p for p in (*run_dir.rglob("*"), *state.rglob("*"))
               if p.is_file() and p.suffix != ".jpg"]
    for path in written:
        assert KEY not in path.read_bytes().decode(errors="replace"), path
    assert KEY not in done.stdout + done.stderr
    assert KEY not in json.dumps(case)
