"""Two web gaps of the s41 audit, through `farm run` on real Chromium.

- No option granted browser permissions: geolocation and the clipboard were denied, and the
  app under test said "location unavailable". The web section now takes Playwright's
  context options `permissions`, `geolocation` (which grants its own permission), `locale`,
  `timezoneId` and `colorScheme`, checked when the suite loads (file:line, an unknown
  permission lists the valid ones).
- A tap that opened a file chooser without `fileChooserAccept` passed and uploaded nothing,
  unsaid. The chooser is still answered as headless Chromium answers it (no file, the input's
  cancel event; as Midscene documents), and a step that then fails names it with the fix.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PAGE = """<!doctype html><html><body>
<p id="geo">locating</p><p id="clip">asking</p><p id="env"></p>
<script>
navigator.geolocation.getCurrentPosition(
  p => geo.textContent = 'at ' + p.coords.latitude + ',' + p.coords.longitude,
  e => geo.textContent = 'location unavailable');
navigator.permissions.query({name: 'clipboard-read'}).then(s => clip.textContent =
  'clipboard ' + s.state);
env.textContent = [Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.language,
  matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'].join(' ');
</script></body></html>"""

CASE = """name: {name}
web:
  serve: .
  url: where.html
{options}tasks:
  - name: where
    flow:
      - waitForText: "at 48.8584,2.2945"
        timeout: 5000
      - assertText: clipboard granted
      - assertText: Europe/Paris fr-FR dark
"""

OPTIONS = """  permissions: [clipboard-read]
  geolocation: {latitude: 48.8584, longitude: 2.2945, accuracy: 10}
  timezoneId: Europe/Paris
  locale: fr-FR
  colorScheme: dark
"""


def test_the_page_gets_the_permissions_position_and_locale_the_case_gives(tmp_path: Path,
                                                                          farm: FarmCli):
    (tmp_path / "where.html").write_text(PAGE)
    (tmp_path / "given.yaml").write_text(CASE.format(name="given", options=OPTIONS))
    (tmp_path / "plain.yaml").write_text(CASE.format(name="plain", options=""))
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    cases = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    given, plain = cases["given"], cases["plain"]
    assert given["status"] == "passed", (given["reason"], done.stdout + done.stderr)
    # without them the page is denied, in its own words
    assert plain["status"] == "failed"
    assert plain["steps"][0]["error"].startswith(
        'text "at 48.8584,2.2945" did not appear'), plain["steps"][0]["error"]


def test_values_chromium_would_refuse_are_named_at_their_lines(tmp_path: Path, farm: FarmCli):
    (tmp_path / "bad.yaml").write_text(
        "name: bad\nweb:\n  url: https://example.com\n"
        "  permissions: [clipbaord-read, notifications]\n"
        "  geolocation: {latitude: 91, longitude: 2}\n"
        "  timezoneId: Europe/Pariss\n"
        "  locale: not a locale\n"
        "  colorScheme: darker\n"
        "tasks:\n  - name: t\n    flow:\n      - assertText: x\n")
    done = farm.run("run", tmp_path / "bad.yaml", "--devices", "browser:1")
    assert done.returncode == 4, done.stdout + done.stderr
    lines = [line.strip() for line in done.stderr.splitlines()]
    bad = str(tmp_path / "bad.yaml")
    assert (f"{bad}:4:17: web.permissions: 'clipbaord-read' is no permission Chromium grants "
            "(did you mean 'clipboard-read'?); expected some of: accelerometer, "
            "ambient-light-sensor, background-sync, camera, clipboard-read, clipboard-write, "
            "geolocation, gyroscope, local-fonts, local-network-access, magnetometer, "
            "microphone, midi, midi-sysex, notifications, payment-handler, screen-wake-lock, "
            "storage-access") in lines, done.stderr
    assert (f"{bad}:5:27: web.geolocation.latitude: expected a number from -90 to 90, got the "
            "number 91") in lines, done.stderr
    assert any(line.startswith(f"{bad}:6:15: web.timezoneId: 'Europe/Pariss' is no time zone "
                               "Chromium knows (did you mean 'Europe/Paris'?)")
               for line in lines), done.stderr
    assert any(line.startswith(f"{bad}:7:11: web.locale: 'not a locale'") for line in lines)
    assert any(line.startswith(f"{bad}:8:16: web.colorScheme:") for line in lines)
    assert "Traceback" not in done.stderr


UPLOAD = """<!doctype html><html><body>
<label>Upload photo <input type="file" id="photo"></label>
<p id="out">no file</p>
<script>
photo.addEventListener('change', () => out.textContent = 'file: ' + photo.files[0].name);
photo.addEventListener('cancel', () => out.textContent += ', chooser closed');
</script></body></html>"""


def test_a_file_chooser_nothing_was_chosen_in_is_named_by_the_failure_after(tmp_path: Path,
                                                                          farm: FarmCli):
    (tmp_path / "upload.html").write_text(UPLOAD)
    (tmp_path / "photo.txt").write_text("x")
    head = "web:\n  serve: .\n  url: upload.html\ntasks:\n  - name: t\n    flow:\n"
    (tmp_path / "forgot.yaml").write_text(
        "name: forgot\n" + head + "      - aiTap: Upload photo\n"
        "      - assertText: 'file: photo.txt'\n")
    (tmp_path / "chose.yaml").write_text(
        "name: chose\n" + head + "      - aiTap: Upload photo\n"
        f"        fileChooserAccept: {tmp_path / 'photo.txt'}\n"
        "      - assertText: 'file: photo.txt'\n"
        "      - aiTap: Upload photo\n"      # again, choosing nothing: the file stays
        "      - waitForText: 'file: photo.txt, chooser closed'\n        timeout: 5000\n")
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    cases = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    assert cases["chose"]["status"] == "passed", (cases["chose"]["reason"], done.stdout)
    forgot = cases["forgot"]
    assert [s["status"] for s in forgot["steps"]] == ["passed", "failed"]
    assert forgot["steps"][1]["error"] == (
        'expected text "file: photo.txt" is not on screen (the page opened a file chooser and '
        "farm chose no file in it, so nothing was uploaded; `fileChooserAccept: <path>` on "
        "the aiTap that opens it chooses one)"), forgot["steps"][1]["error"]
