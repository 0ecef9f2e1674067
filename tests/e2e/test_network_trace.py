"""The trace reader tells a loopback connection from one that leaves the machine or asks DNS."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.network_trace import parse, problems

LOG = """\
101 connect(7, {sa_family=AF_INET, sin_port=htons(41235), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
101 connect(8, {sa_family=AF_INET6, sin6_port=htons(8080), sin6_flowinfo=htonl(0), \
inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0
102 connect(3, {sa_family=AF_UNIX, sun_path="/tmp/qt-socket"}, 110) = -1 ENOENT
102 connect(4, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 0
103 connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 0
103 sendto(6, "\\x12"..., 40, MSG_NOSIGNAL, {sa_family=AF_INET, sin_port=htons(443), \
sin_addr=inet_addr("13.69.109.130")}, 16) = 40
104 connect(9, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT
104 connect(9, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), \
inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr), sin6_scope_id=0}, 28) = 0
"""


def test_parse_reads_every_family() -> None:
    found = parse(LOG)
    assert [c.family for c in found] == [
        "AF_INET", "AF_INET6", "AF_UNIX", "AF_NETLINK", "AF_INET", "AF_INET", "AF_UNIX", "AF_INET6",
    ]  # fmt: skip
    assert found[0].address == "127.0.0.1" and found[0].port == 41235
    assert found[1].address == "::1"
    assert found[5].call == "sendto" and found[5].port == 443


def test_problems_name_what_left_and_what_asked_dns(tmp_path: Path) -> None:
    log = tmp_path / "trace.log"
    log.write_text(LOG)
    found = problems(log)
    assert len(found) == 3
    assert found[0].startswith("a DNS query")
    assert found[1].startswith("a connection to 13.69.109.130 port 443")
    assert found[2].startswith("a name lookup through /var/run/nscd/socket")
