"""The host's one loopback rule (engine/host/http/loopback.py), and the guards and CORS that read a
``Host`` header, a client's address or a page's origin through it."""

from __future__ import annotations

import pytest

from engine.host.http.cors import default_allowed
from engine.host.http.guards import addressed_elsewhere
from engine.host.http.loopback import is_loopback

CASES = [
    ("localhost", True),
    ("LocalHost", True),
    ("127.0.0.1", True),
    ("127.0.0.2", True),
    ("127.255.255.254", True),
    ("::1", True),
    ("[::1]", True),
    ("::ffff:127.0.0.1", True),
    ("[::ffff:127.0.0.1]", True),
    ("::ffff:127.1.2.3", True),
    ("fe80::1%lo", False),
    ("128.0.0.1", False),
    ("0.0.0.0", False),
    ("::", False),
    ("::ffff:10.0.0.1", False),
    ("10.0.0.1", False),
    ("192.168.1.20", False),
    ("localhost.evil.example", False),
    ("evil-localhost", False),
    ("example.com", False),
    ("", False),
    ("[", False),
    ("127.0.0.1.nip.io", False),
    ("not an address", False),
]


@pytest.mark.parametrize(("host", "loopback"), CASES)
def test_the_loopback_rule(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize(
    ("header", "elsewhere"),
    [
        ("localhost:8080", False),
        ("127.0.0.1:8080", False),
        ("127.0.0.2", False),
        ("[::1]:8080", False),
        ("[::1]", False),
        ("[::ffff:127.0.0.1]:8080", False),
        ("", False),  # no Host at all: an HTTP/1.0 client on this computer
        ("evil.example:8080", True),
        ("192.168.1.20:8080", True),
        ("[::2]:8080", True),
    ],
)
def test_a_host_header_is_read_through_the_rule(header: str, elsewhere: bool) -> None:
    assert addressed_elsewhere(header) is elsewhere


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("http://localhost:3000", True),
        ("https://127.0.0.5:8443", True),
        ("http://[::1]:5173", True),
        ("http://[::ffff:127.0.0.1]:5173", True),
        ("http://evil.example", False),
        ("http://localhost.evil.example", False),
        ("file://", False),
        ("null", False),
    ],
)
def test_a_page_of_this_computer_is_read_through_the_rule(origin: str, allowed: bool) -> None:
    assert default_allowed(origin) is allowed
