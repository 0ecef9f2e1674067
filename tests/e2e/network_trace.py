"""Reading an strace log of network calls: which connections a process tree opened, and which of
them left the machine or asked a name server."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path

# The syscalls that name a peer: connect for streams and connected datagrams, sendto/sendmsg for
# datagrams sent to an address (a resolver may do either).
TRACED_CALLS = "connect,sendto,sendmsg,sendmmsg"

_ADDRESS = re.compile(r"\{sa_family=(AF_\w+)([^{}]*)\}")
_CALL = re.compile(r"^(?:\[pid\s+)?(\d+)\]?\s+(\w+)\(")
_PORT = re.compile(r"sin6?_port=htons\((\d+)\)")
_INET = re.compile(r'inet_addr\("([^"]+)"\)')
_INET6 = re.compile(r'inet_pton\(AF_INET6,\s*"([^"]+)"')
_UNIX = re.compile(r'sun_path=(@?"[^"]*")')

# Local sockets that are name lookups in disguise: the glibc name-service cache and
# systemd-resolved's varlink and D-Bus endpoints forward a query to the network.
_RESOLVER_SOCKETS = ("nscd", "resolve")
# Families that never leave the machine.
_LOCAL_FAMILIES = {"AF_UNIX", "AF_LOCAL", "AF_NETLINK", "AF_UNSPEC"}


@dataclass(frozen=True, slots=True)
class Connection:
    pid: int
    call: str
    family: str
    address: str
    port: int | None
    line: str

    @property
    def problem(self) -> str | None:
        """Why this connection breaks the privacy promise, or None when it stays on the machine."""
        if self.port == 53:
            return "a DNS query"
        if self.family in ("AF_INET", "AF_INET6"):
            try:
                ip = ipaddress.ip_address(self.address.split("%")[0])
            except ValueError:
                return f"an address that cannot be read: {self.address!r}"
            mapped = getattr(ip, "ipv4_mapped", None)
            ip = mapped or ip
            if ip.is_loopback or ip.is_unspecified:
                return None
            return f"a connection to {self.address} port {self.port}"
        if self.family in ("AF_UNIX", "AF_LOCAL"):
            if any(name in self.address for name in _RESOLVER_SOCKETS):
                return f"a name lookup through {self.address}"
            return None
        if self.family in _LOCAL_FAMILIES:
            return None
        return f"a {self.family} socket"


def parse(log: str) -> list[Connection]:
    """Every addressed network call in an ``strace -f`` log (one line per call)."""
    found: list[Connection] = []
    for line in log.splitlines():
        call = _CALL.match(line.strip())
        if call is None:
            continue
        pid, name = int(call.group(1)), call.group(2)
        for family, body in _ADDRESS.findall(line):
            port = _PORT.search(body)
            if family == "AF_INET":
                addr = _INET.search(body)
            elif family == "AF_INET6":
                addr = _INET6.search(body)
            else:
                addr = _UNIX.search(body)
            found.append(
                Connection(
                    pid=pid,
                    call=name,
                    family=family,
                    address=addr.group(1).strip('"') if addr else "",
                    port=int(port.group(1)) if port else None,
                    line=line.strip(),
                )
            )
    return found


def problems(log_path: Path) -> list[str]:
    """One line for each call in the log that left the machine or asked a name server."""
    return [
        f"{c.problem}: {c.line}"
        for c in parse(log_path.read_text(errors="replace"))
        if c.problem is not None
    ]
