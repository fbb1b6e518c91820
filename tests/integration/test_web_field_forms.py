"""aiInput into a date, time, number, colour or range input the browser would not take as
given fails saying what the field takes: "12/03/2026" into a date input left it empty and the
step passed (the form failed later, or sent no date). A time as "7:30" is taken as 07:30, a
colour by its name; what they were given is what the page reads. Real `farm run`, Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PAGE = """<!doctype html><html><body>
<label>Birthday <input type="date" id="d"></label>
<label>Alarm <input type="time" id="t"></label>
<label>Age <input type="number" id="n"></label>
<label>Colour <input type="color" id="c"></label>
<label>Volume <input type="range" id="v" min="0" max="10"></label>
<button onclick="document.getElementById('o').textContent =
  ['d', 't', 'n', 'c', 'v'].map((i) => document.getElementById(i).value).join(' | ')">Show</button>
<p id="o"></p></body></html>"""

STEPS = [("Birthday", "12/03/2026"), ("Birthday", "2026-12-03"), ("Alarm", "7:30"),
         ("Age", "abc"), ("Age", "42"), ("Colour", "red"), ("Volume", "15"), ("Volume", "7")]


def test_a_field_that_did_not_take_the_value_fails_saying_what_it_takes(tmp_path: Path,
                                                                          farm: FarmCli):
    (tmp_path / "page.html").write_text(PAGE)
    tasks = "".join(f"  - name: t{i}\n    continueOnError: true\n    flow:\n"
                    f"      - aiInput: {field}\n        value: \"{value}\"\n"
                    for i, (field, value) in enumerate(STEPS))
    (tmp_path / "fields.yaml").write_text(
        "name: fields\nweb:\n  serve: .\n  url: page.html\ntasks:\n" + tasks
        + "  - name: shown\n    flow:\n      - aiTap: Show\n"
          "      - assertText: 2026-12-03 | 07:30 | 42 | #ff0000 | 7\n")
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    steps = results(tmp_path / "run")["cases"][0]["steps"]
    said = {s["index"]: s["error"] for s in steps if s["status"] != "passed"}
    assert said == {
        1: 'the input[type=date] did not take "12/03/2026" (it is empty); it takes '
           '"yyyy-mm-dd" (2026-12-03)',
        4: 'the input[type=number] did not take "abc" (it is empty); it takes a number '
           '(42, -1.5)',
        7: 'the input[type=range] did not take "15" (it holds "10"); it takes a number within '
           'its min and max'}, said
    assert [s["status"] for s in steps[-2:]] == ["passed", "passed"], done.stdout
