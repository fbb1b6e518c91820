"""A tap right after the page starts a transition goes where its target comes to rest: a panel
sliding in, a button fading in. Before, the DOM read saw the panel mid-way (its button off
screen: "did not come into view after 2 scroll(s)") or the button at opacity 0 (no zero-token
match: "needs a model"), so the next step failed or paid for a model. Real `farm run`, real
Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PAGE = """<!doctype html><html><head><style>
#panel { position: fixed; top: 100px; left: 0; width: 300px; padding: 20px; background: #eee;
  transform: translateX(-400px); transition: transform 600ms ease-out }
#panel.open { transform: translateX(300px) }
#fade { opacity: 0; transition: opacity 500ms } #fade.on { opacity: 1 }
.spinner { width: 20px; height: 20px; border: 3px solid #999; border-top-color: transparent;
  border-radius: 50%; animation: spin 1s linear infinite }
@keyframes spin { to { transform: rotate(360deg) } }
</style></head><body>
<div class="spinner"></div>
<button onclick="document.getElementById('panel').classList.add('open')">Open panel</button>
<button onclick="document.getElementById('fade').classList.add('on')">Show more</button>
<div id="panel"><p>Panel</p><button onclick="say('Confirmed')">Confirm</button></div>
<div id="fade"><button onclick="say('Faded in')">Faded button</button></div>
<p id="out"></p>
<script>function say(t) { document.getElementById('out').textContent = t }</script>
</body></html>"""

CASE = """name: transitions
web:
  serve: .
  url: page.html
tasks:
  - name: a sliding panel
    flow:
      - aiTap: Open panel
      - aiTap: Confirm
      - assertText: Confirmed
  - name: a button fading in
    flow:
      - aiTap: Show more
      - aiTap: Faded button
      - assertText: Faded in
"""


def test_a_tap_after_a_transition_finds_its_target_where_it_comes_to_rest(tmp_path: Path,
                                                                          farm: FarmCli):
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "case.yaml").write_text(CASE)
    done = farm.run("run", tmp_path / "case.yaml", "--devices", "browser:1", "--report-dir",
                    tmp_path / "run")
    assert done.returncode == 0, done.stdout + done.stderr
    [result] = results(tmp_path / "run")["cases"]
    assert [(s["status"], s["tier"]) for s in result["steps"] if s["kind"] == "aiTap"] == [
        ("passed", "text")] * 4
