"""``cove serve --lan``: what changes when the engine serves other computers. It listens on every
address (or the one given), encrypts with this machine's certificate, requires a key, and limits
each address's requests. The key and the fingerprint are printed on stdout, one per line
(``key: K``, ``fingerprint: F``), the key only when it was made now: it is shown once."""

from __future__ import annotations

import dataclasses

from engine.host.server import ServeOptions
from engine.remote.certificate import identity
from engine.remote.keys import ensure_key
from engine.remote.ratelimit import RateLimit


def lan_options(
    options: ServeOptions, *, host: str | None, new_key: bool, advertise: bool
) -> ServeOptions:
    if options.ollama:
        raise ValueError(
            "--ollama serves Ollama's plain-HTTP port on this computer only; run it without --lan"
        )
    tls = identity()
    key = ensure_key("serve", options.api_key, new=new_key)
    if key.shown is not None:
        print(f"key: {key.shown}", flush=True)
    print(f"fingerprint: {tls.fingerprint}", flush=True)
    if key.shown is not None:
        print(
            "Give the key to the people who may use this engine; it is shown only now "
            "(cove serve --lan --new-key makes another). They should check that their Cove "
            "shows the same fingerprint when it first connects.",
            flush=True,
        )
    return dataclasses.replace(
        options,
        host=host or "0.0.0.0",
        api_key=None,
        key_digest=key.digest,
        tls=tls,
        rate_limit=RateLimit(),
        advertise=advertise,
    )
