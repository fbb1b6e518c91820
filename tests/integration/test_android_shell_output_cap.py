"""A runAdbShell step whose command prints megabytes (`logcat -d`, `cat` of a big file) keeps
its last 64K characters, after a line saying how much was cut: the whole output went into
results.json twice (the step's output and the case's data), 6.6 MB for a 3 MB file. An output
under the cap is kept as the command printed it."""

from __future__ import annotations

import json

from tests.support.farm_cli import FarmCli, by_name, results

# a 200-character line doubled 14 times on the phone: 3.3 MB, the last line numbered apart
BIG = ("echo " + "x" * 199 + " > /sdcard/big.txt; "
       + "; ".join(["cat /sdcard/big.txt >> /sdcard/big.txt"] * 14)
       + "; echo the newest line >> /sdcard/big.txt; cat /sdcard/big.txt")


def test_a_huge_output_keeps_its_tail_and_says_what_was_cut(farm: FarmCli):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "big.yaml").write_text(f"""\
android:
tasks:
  - name: read a big file
    flow:
      - runAdbShell: "{BIG}"
        name: whole
      - runAdbShell: getprop ro.build.version.sdk
        name: sdk
""")
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir",
                    farm.tmp / "run")
    assert done.returncode == 0, done.stdout + done.stderr
    case = by_name(results(farm.tmp / "run"))["big"]
    kept = case["data"]["whole"]
    first, _, rest = kept.partition("\n")
    assert first == "[farm: 3,211,400 characters of 3,276,816 cut; the last 65,416 kept]", first
    assert rest.endswith("x" * 199 + "\nthe newest line\n") and len(rest) == 65_416
    assert rest.startswith("x" * 199 + "\n")        # from a line's start
    assert case["steps"][0]["output"] == kept
    assert case["data"]["sdk"] == "34\n"            # a small output as printed
    assert len(json.dumps(case)) < 300_000
