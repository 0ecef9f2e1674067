"""The parts of serving beyond this computer, each on its own: dealing layers by free memory, keys
kept as digests, secrets in a private file where no keyring works, limits per address, and the
announcement on the local network."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from engine.formats.gguf import read_gguf
from engine.host.http.guards import HostConfig
from engine.host.protocols.routes import make_app
from engine.host.state import HostState
from engine.planner.gguf import make_plan
from engine.planner.plan import Device, Resources
from engine.remote import DEFAULT_WORKER_PORT, keychain
from engine.remote.keys import digest, ensure_key, key_path, matches
from engine.remote.ratelimit import RateLimit
from engine.remote.split import WorkerShare, _deal, decode, encode, split_plan
from engine.remote.tunnel import WorkerAddress

GiB = 2**30


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("COVE_NO_KEYRING", "1")
    return tmp_path


def test_layers_are_dealt_in_proportion_to_room() -> None:
    assert _deal(30, [10.0, 10.0, 10.0]) == [10, 10, 10]
    assert _deal(30, [100.0, 50.0, 50.0]) == [15, 8, 7]
    # Never more layers than a machine has room for, while the others have room.
    dealt = _deal(30, [40.0, 4.0, 40.0])
    assert dealt[1] <= 4 and sum(dealt) == 30
    # Not enough room anywhere: every layer is still dealt (the plan then says it does not fit).
    assert sum(_deal(30, [5.0, 5.0])) == 30


def test_split_plan_puts_the_last_layers_and_the_head_on_the_workers(starter: Path) -> None:
    g = read_gguf(starter)
    resources = Resources(cpu=Device("CPU RAM", "cpu", 8 * GiB, 16 * GiB), threads=2)
    base = make_plan(g, resources, requested_ctx=2048)
    workers = [
        WorkerShare("127.0.0.1:1", "left:50052", 8 * GiB, 16 * GiB),
        WorkerShare("127.0.0.1:2", "right:50052", 16 * GiB, 32 * GiB, "CUDA0 (RTX 4090)"),
    ]
    plan = split_plan(g, base, workers, 8 * GiB)
    assert plan.verdict == "fits"
    here, left, right = (int(x) for x in _counts(plan.reasons[-1]))
    assert here + left + right == g.block_count
    assert right > left  # twice the free memory, about twice the layers
    # llama.cpp's shares: each worker's layers, the last one's plus the output head.
    assert plan.tensor_split == (left, right + 1)
    assert plan.gpu_layers == left + right + 1
    assert [b.device for b in plan.budgets][1:] == [
        "worker left:50052 (CPU)",
        "worker right:50052 (CUDA0 (RTX 4090))",
    ]
    assert decode(encode(workers)) == tuple(workers)


def _counts(reason: str) -> list[str]:
    # "Layers split by free memory (30 in all): 10 here, 10 on a, 10 on b."
    return [part.strip().split(" ")[0] for part in reason.split(":", 1)[1].split(",")]


def test_worker_addresses_parse() -> None:
    assert WorkerAddress.parse("desk.local:50100=k3y-k3y-k3y") == WorkerAddress(
        "desk.local", 50100, "k3y-k3y-k3y"
    )
    assert WorkerAddress.parse("10.0.0.2").port == DEFAULT_WORKER_PORT
    assert WorkerAddress.parse("[fe80::1]:7000=k").host == "fe80::1"
    for bad in ("", ":5000", "host:port", "host:70000"):
        with pytest.raises(ValueError):
            WorkerAddress.parse(bad)


def test_a_key_is_shown_once_and_only_its_digest_is_kept(data: Path) -> None:
    made = ensure_key("serve")
    assert made.shown is not None and matches(made.shown, made.digest)
    assert made.shown not in key_path("serve").read_text()
    kept = ensure_key("serve")
    assert kept.shown is None and kept.digest == made.digest
    rotated = ensure_key("serve", new=True)
    assert rotated.shown is not None and not matches(made.shown, rotated.digest)
    given = ensure_key("worker", "my-own-key-123")
    assert given.shown is None and given.digest == digest("my-own-key-123")
    with pytest.raises(ValueError):
        ensure_key("worker", "short")


def test_secrets_fall_back_to_a_private_file(data: Path) -> None:
    assert keychain.save_secret("engine:desk.local:8080", "cove-secret") == "file"
    assert keychain.load_secret("engine:desk.local:8080") == "cove-secret"
    mode = stat.S_IMODE(os.stat(keychain.secrets_path()).st_mode)
    assert mode == 0o600
    keychain.delete_secret("engine:desk.local:8080")
    assert keychain.load_secret("engine:desk.local:8080") is None


def test_wrong_keys_lock_an_address_out_and_requests_are_limited() -> None:
    limit = RateLimit(requests_per_minute=5, failures_per_minute=3, lockout_s=60)
    app = make_app(
        HostState(),
        HostConfig(api_key="cove-right-key", loopback_only=False, rate_limit=limit),
    )
    client = TestClient(app)  # its requests come from "testclient", not loopback
    good = {"Authorization": "Bearer cove-right-key"}
    assert client.get("/v1/models", headers=good).status_code == 200
    for _ in range(3):
        assert client.get("/v1/models", headers={"Authorization": "Bearer x"}).status_code == 401
    locked = client.get("/v1/models", headers=good)
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) > 0
    # Another address is not affected; and a fast one is limited by count.
    other = RateLimit(requests_per_minute=2)
    assert other.check("10.0.0.9", now=0.0) is None
    assert other.check("10.0.0.9", now=1.0) is None
    assert other.check("10.0.0.9", now=2.0) is not None
    assert other.check("10.0.0.9", now=61.0) is None


def test_the_announcement_carries_the_name_and_fingerprint_only_when_asked(
    tmp_path: Path,
) -> None:
    from engine.remote.discovery import _addresses, browse
    from tests.support.remote_process import CoveProcess, free_port

    if _addresses() == ["127.0.0.1"]:
        pytest.skip("no network interface to announce on")
    quiet_port, loud_port = free_port(), free_port()
    quiet = CoveProcess(tmp_path / "quiet", "serve", "--lan", "--port", str(quiet_port))
    loud = CoveProcess(tmp_path / "loud", "serve", "--lan", "--advertise", "--port", str(loud_port))
    try:
        quiet.wait_for("serving on https://")
        fingerprint = loud.value("fingerprint:")
        loud.wait_for("announced on the local network")
        found = browse(3.0)
        ports = {f.port: f for f in found}
        assert loud_port in ports and ports[loud_port].fingerprint == fingerprint
        assert quiet_port not in ports
    finally:
        quiet.stop()
        loud.stop()
