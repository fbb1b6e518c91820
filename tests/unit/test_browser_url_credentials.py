"""A web target's `user:password@` goes to the browser context as http_credentials for the
URL's origin alone, and the page opens at the URL without it (a document whose URL holds
credentials cannot fetch a relative URL in Chromium)."""

from __future__ import annotations

import pytest

from farm.devices.web.context import without_credentials


@pytest.mark.parametrize("url, bare, origin", [
    ("http://qa:p%40ss%20w@Shop.Test:8080/a?b=1#c", "http://Shop.Test:8080/a?b=1#c",
     "http://shop.test:8080"),
    ("https://qa:x@shop.test:443/", "https://shop.test:443/", "https://shop.test"),
    ("http://qa:x@[::1]:80/", "http://[::1]:80/", "http://[::1]"),
])
def test_credentials_leave_the_url_for_their_origin(url: str, bare: str, origin: str) -> None:
    opened, credentials = without_credentials(url)
    assert opened == bare
    assert credentials is not None and credentials["origin"] == origin
    assert credentials["username"] == "qa"


def test_the_password_is_decoded_and_a_user_alone_has_an_empty_one() -> None:
    assert without_credentials("http://qa:p%40ss%20w@h:1/")[1] == {
        "username": "qa", "password": "p@ss w", "origin": "http://h:1"}
    assert without_credentials("http://qa@h:1/")[1] == {
        "username": "qa", "password": "", "origin": "http://h:1"}


@pytest.mark.parametrize("url", ["http://h:1/a?to=x@y", "file:///tmp/a@b.html",
                                 "data:text/html,a@b", "about:blank"])
def test_a_url_without_credentials_is_opened_as_it_is(url: str) -> None:
    assert without_credentials(url) == (url, None)


def test_a_refusal_of_the_credentials_names_the_url_as_given_masked() -> None:
    """The credentials left the URL the page opens: a 401 on their origin still shows they were
    sent (masked), as the URL the case gave; another origin's URL is named as it is."""
    from farm.devices.web.failures import http_status_note
    signed_in = ("http://h:1", "qa")
    assert http_status_note(401, "http://h:1/app?token=abc", signed_in) == \
        "the page answered 401 Unauthorized: http://qa:***@h:1/app?token=***"
    assert http_status_note(404, "http://other:1/app", signed_in) == \
        "the page answered 404 Not Found: http://other:1/app"
    assert http_status_note(401, "http://h:10/app", signed_in) == \
        "the page answered 401 Unauthorized: http://h:10/app"
