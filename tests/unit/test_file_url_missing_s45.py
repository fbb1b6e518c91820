"""A file:// page that is there is not called missing: its URL (``Path.as_uri``) writes a
literal "%" as "%25", which the check decoded twice ("a%41.html" read as "aA.html")."""

from __future__ import annotations

from pathlib import Path

from farm.runner import Services, missing_served_file


def test_a_file_url_is_decoded_once(tmp_path: Path) -> None:
    page = tmp_path / "a%41 b.html"
    page.write_text("<p>here</p>")
    services = Services.__new__(Services)
    services.app_dirs = {}
    assert missing_served_file(page.as_uri(), services) is None
    gone = tmp_path / "gone%41.html"
    assert missing_served_file(gone.as_uri(), services) == gone
