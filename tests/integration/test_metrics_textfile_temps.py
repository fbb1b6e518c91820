"""metrics.prom is written through a temporary file renamed over it; a `farm run` killed
(SIGKILL, the OOM killer, a CI job's hard timeout) in between left that file in the folder,
and in a textfile-collector folder a run writes into again and again they piled up. The next
write removes the ones whose process is gone, and no other file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from farm import metrics

# a farm process that stops for good between writing the temporary file and renaming it
_KILLED_MID_WRITE = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from farm import metrics

    def stuck(*args, **kwargs):
        print("written", flush=True)
        sys.stdin.read()

    os.replace = os.rename = stuck
    metrics.write_textfile(Path(sys.argv[1]))
""")


def _killed_mid_write(path: Path) -> int:
    """Run a process that writes ``path`` and SIGKILL it before its rename; its pid."""
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_MID_WRITE, str(path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "written\n"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdin.close()
    proc.stdout.close()
    return proc.pid


def test_a_write_removes_what_a_killed_run_left_and_keeps_everything_else(tmp_path):
    path = tmp_path / "metrics.prom"
    pid = _killed_mid_write(path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert len(left) == 1 and left[0].startswith(f"metrics.prom.{pid}."), left
    # earlier farm versions' temporary name (prometheus_client's) from the same dead process;
    # a live process's write in progress; other files of the folder
    (tmp_path / f"metrics.prom.{pid}.140245").write_text("farm_cases_total 1\n")
    busy = tmp_path / f"metrics.prom.{os.getpid()}.0a1b2c3d4e5f.tmp"
    busy.write_text("")
    others = ["other.prom", f"metrics.prom.{pid}.notes", "metrics.prom.bak"]
    for name in others:
        (tmp_path / name).write_text("keep\n")

    metrics.run_started({"temps"})
    metrics.write_textfile(path)

    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["metrics.prom", busy.name, *others])
    assert 'farm_cases_total{platform="temps",status="passed"} 0.0' in path.read_text()


def test_a_folder_of_only_the_file_keeps_it_whole(tmp_path):
    """Two writes in a row: the second replaces the first, and nothing else appears."""
    path = tmp_path / "metrics.prom"
    metrics.write_textfile(path)
    metrics.write_textfile(path)
    assert [p.name for p in tmp_path.iterdir()] == ["metrics.prom"]
    assert "# TYPE farm_cases_total counter" in path.read_text()
