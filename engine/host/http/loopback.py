"""The one rule for "this computer's loopback", which the host applies to the address it listens
on, a request's ``Host`` header, a client's address and a web page's origin alike."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this computer's loopback: the name ``localhost`` (any case), an
    IPv4 address in 127.0.0.0/8, IPv6's ``::1``, or an IPv4-mapped IPv6 address of 127.0.0.0/8
    (``::ffff:127.0.0.1``, what a dual-stack socket reports for an IPv4 client). An IPv6
    address may come in brackets (``[::1]``, as in a URL or a ``Host`` header), and a zone
    (``%lo``) is ignored. Anything else, an empty or unparsable host included, is not."""
    name = host.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback
