"""Finding Cove engines on the local network (mDNS, with zeroconf), off unless asked for:
``cove serve --lan --advertise`` announces a ``_cove._tcp`` service whose only details are the
computer's name and the certificate's fingerprint (the address and port are what mDNS itself
carries). Finding one does not trust it: the fingerprint is still pinned on first connection,
and the person compares it with the one the other computer shows."""

from __future__ import annotations

import logging
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("cove.remote")

SERVICE = "_cove._tcp.local."
_announced: list[Any] = []  # the running Zeroconf instance, kept for the process's life


@dataclass(frozen=True, slots=True)
class Found:
    name: str
    host: str
    port: int
    fingerprint: str

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"https://{host}:{self.port}/v1"


def advertise(port: int, fingerprint: str | None) -> None:
    """Announce this engine until the process ends."""
    from zeroconf import ServiceInfo, Zeroconf

    name = socket.gethostname() or "cove"
    info = ServiceInfo(
        SERVICE,
        f"{name}.{SERVICE}",
        port=port,
        properties={"name": name, "fp": fingerprint or ""},
        server=f"{name}.local.",
        parsed_addresses=_addresses(),
    )
    zc = Zeroconf()
    zc.register_service(info, allow_name_change=True)  # a second Cove here: "name (2)"
    _announced.append(zc)
    log.info("announced on the local network as %s (mDNS)", name)


def browse(seconds: float = 3.0) -> list[Found]:
    """The Cove engines that answer on the local network within ``seconds``."""
    from zeroconf import ServiceBrowser, ServiceStateChange, Zeroconf

    found: dict[str, Found] = {}
    lock = threading.Lock()
    zc = Zeroconf()

    def changed(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is not ServiceStateChange.Added:
            return
        info = zeroconf.get_service_info(service_type, name, timeout=int(seconds * 1000))
        if info is None or not info.parsed_addresses():
            return
        props = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
        with lock:
            found[name] = Found(
                name=props.get("name") or name.split(".")[0],
                host=info.parsed_addresses()[0],
                port=int(info.port or 0),
                fingerprint=props.get("fp", ""),
            )

    browser = ServiceBrowser(zc, SERVICE, handlers=[changed])
    try:
        time.sleep(seconds)  # mDNS answers arrive over this window; there is no "done" signal
    finally:
        browser.cancel()
        zc.close()
    with lock:
        return sorted(found.values(), key=lambda f: f.name)


def _addresses() -> list[str]:
    """This computer's non-loopback IPv4 addresses."""
    import psutil

    found = []
    for addrs in psutil.net_if_addrs().values():
        for a in addrs:
            if a.family == socket.AF_INET and not a.address.startswith("127."):
                found.append(a.address)
    return found or ["127.0.0.1"]
