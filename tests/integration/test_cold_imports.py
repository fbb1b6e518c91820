"""What a fresh interpreter pays to start farm: heavy libraries stay out until they are needed."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module, heavy", [
    ("farm.devices.chromium", "playwright"),
    ("farm.cli", "litellm"),
    ("farm.session", "litellm"),
])
def test_import_does_not_pull_in_heavy_libraries(module: str, heavy: str) -> None:
    code = f"import sys, {module}; print({heavy!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", f"importing {module} imports {heavy}"
