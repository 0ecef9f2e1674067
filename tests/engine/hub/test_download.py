"""The download manager against a loopback hub: parallel ranged parts, SHA-256 verification,
resume, and every fault the issue lists, checked by what the server actually sent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.hub.api import HubConfig
from engine.hub.download import DownloadManager, DownloadRequest
from engine.library.layout import partial_path, state_path
from engine.library.partial import list_partials
from tests.support.downloads import (
    FILE,
    PART,
    REPO,
    SIZE,
    WAIT_S,
    assert_installed,
    installed,
    manager,
    options,
    pull,
)
from tests.support.fake_hub import FakeHub, Fault, random_bytes


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as fake:
        yield fake


@pytest.fixture
def data(hub: FakeHub) -> bytes:
    blob = random_bytes(SIZE)
    hub.add(REPO, FILE, blob)
    return blob


def test_parts_arrive_in_parallel_and_the_file_is_verified_and_installed(
    hub: FakeHub, data: bytes, tmp_path: Path
) -> None:
    result = pull(hub, tmp_path, token="hf_test_token")
    assert_installed(tmp_path, data, result)
    served = hub.state.served
    assert len(served) == -(-SIZE // PART) and all(s.status == 206 for s in served)
    assert hub.state.bytes_served() == SIZE  # every byte once
    assert all(s.authorization is None for s in served)  # the token stays on the hub
    assert result.fetched_bytes == SIZE and result.retries == 0


# Each fault, with the bodies read off the socket (the default) and through httpx (behind a proxy,
# or for a chunked body).
READERS = pytest.mark.parametrize("socket_reader", [True, False], ids=["socket", "httpx"])


@READERS
def test_a_connection_cut_mid_part_resumes_that_part_where_it_stopped(
    hub: FakeHub, data: bytes, tmp_path: Path, socket_reader: bool
) -> None:
    hub.fault(Fault("cut", offset=PART * 2 + 1000))
    result = pull(hub, tmp_path, socket_reader=socket_reader)
    assert_installed(tmp_path, data, result)
    assert result.retries >= 1
    assert hub.state.bytes_served() == SIZE  # the part went on from its last byte


@READERS
def test_wrong_bytes_are_found_and_only_the_parts_up_to_them_are_fetched_again(
    hub: FakeHub, data: bytes, tmp_path: Path, socket_reader: bool
) -> None:
    hub.fault(Fault("corrupt", offset=PART * 2 + 77))
    result = pull(hub, tmp_path, socket_reader=socket_reader)
    assert_installed(tmp_path, data, result)
    # parts 0 and 1 compare equal, part 2 holds the bad byte: the repair stops there
    assert hub.state.bytes_served() == SIZE + 3 * PART


def test_a_file_that_never_matches_its_checksum_is_not_installed(
    hub: FakeHub, data: bytes, tmp_path: Path
) -> None:
    request = DownloadRequest(REPO, FILE, sha256="0" * 64)
    result = pull(hub, tmp_path, request)
    assert result.status == "failed" and result.error_code == "checksum_mismatch"
    path = installed(tmp_path)
    assert not path.exists() and not partial_path(path).exists()


@READERS
def test_a_silent_part_is_restarted(
    hub: FakeHub, data: bytes, tmp_path: Path, socket_reader: bool
) -> None:
    hub.fault(Fault("stall", offset=PART + 5000))
    result = pull(hub, tmp_path, socket_reader=socket_reader)
    assert_installed(tmp_path, data, result)
    assert result.retries >= 1


@READERS
def test_a_crawling_part_is_restarted(
    hub: FakeHub, data: bytes, tmp_path: Path, socket_reader: bool
) -> None:
    hub.fault(Fault("crawl", offset=10))
    result = pull(hub, tmp_path, socket_reader=socket_reader)
    assert_installed(tmp_path, data, result)
    assert result.restarts >= 1


@READERS
@pytest.mark.parametrize(("status", "headers"), [(429, {"Retry-After": "1"}), (500, {}), (503, {})])
def test_busy_and_failing_servers_are_retried(
    hub: FakeHub,
    data: bytes,
    tmp_path: Path,
    status: int,
    headers: dict[str, str],
    socket_reader: bool,
) -> None:
    hub.fault(Fault("status", status=status, headers=headers))
    hub.fault(Fault("status", status=status, headers=headers))
    result = pull(hub, tmp_path, socket_reader=socket_reader)
    assert_installed(tmp_path, data, result)
    assert result.retries >= 2
    assert [s.status for s in hub.state.served].count(status) == 2


@READERS
def test_a_server_without_range_support_is_read_in_one_stream(
    hub: FakeHub, data: bytes, tmp_path: Path, socket_reader: bool
) -> None:
    hub.state.no_range = True
    result = pull(hub, tmp_path, socket_reader=socket_reader)
    assert_installed(tmp_path, data, result)
    full = [s for s in hub.state.served if s.status == 200]
    assert len(full) >= 1 and full[-1].sent == SIZE


def test_a_gated_repo_says_it_needs_a_token_and_works_with_one(
    hub: FakeHub, data: bytes, tmp_path: Path
) -> None:
    hub.state.gated.add(REPO)
    refused = pull(hub, tmp_path)
    assert refused.status == "failed" and refused.error_code == "hub_auth_required"
    assert refused.error is not None and "HF_TOKEN" in refused.error
    assert hub.state.bytes_served() == 0
    result = pull(hub, tmp_path, token="hf_test_token")
    assert_installed(tmp_path, data, result)
    assert all(s.authorization is None for s in hub.state.served)


def test_a_private_repo_without_a_token_reads_as_missing_with_a_hint(
    hub: FakeHub, data: bytes, tmp_path: Path
) -> None:
    hub.state.private.add(REPO)
    result = pull(hub, tmp_path)
    assert result.error_code == "hub_not_found"
    assert result.error is not None and "HF_TOKEN" in result.error


def test_a_missing_file_or_repo_is_not_found(hub: FakeHub, data: bytes, tmp_path: Path) -> None:
    for request in (DownloadRequest(REPO, "nope.gguf"), DownloadRequest("acme/nothing", FILE)):
        result = pull(hub, tmp_path, request)
        assert result.status == "failed" and result.error_code == "hub_not_found"


def test_too_little_disk_space_stops_before_any_byte(
    hub: FakeHub, data: bytes, tmp_path: Path
) -> None:
    result = pull(hub, tmp_path, free_space=lambda _path: SIZE // 2)
    assert result.status == "failed" and result.error_code == "insufficient_disk"
    assert result.error is not None and "free" in result.error
    assert hub.state.bytes_served() == 0


def test_pause_keeps_the_finished_parts_and_resume_fetches_only_the_rest(
    hub: FakeHub, data: bytes, tmp_path: Path
) -> None:
    hub.state.hold_from = PART * 4  # bytes past here wait until released
    mgr = manager(hub, tmp_path)
    try:
        download = mgr.enqueue(DownloadRequest(REPO, FILE))
        with download._cond:
            download._cond.wait_for(lambda: download._progress.done_bytes >= PART * 4, WAIT_S)
        download.pause()
        hub.state.release.set()
        paused = download.wait(WAIT_S)
        assert paused.status == "paused"
        partial = list_partials(tmp_path)
        assert [p.file for p in partial] == [FILE] and partial[0].downloaded_bytes >= PART * 4
        before = hub.state.bytes_served()
        hub.state.hold_from = None
        download.resume()
        result = download.wait(WAIT_S)
        while result.status == "queued":  # wait() may see the resume's own queued state
            result = download.wait(WAIT_S)
    finally:
        mgr.close()
    assert_installed(tmp_path, data, result)
    assert hub.state.bytes_served() - before <= SIZE - partial[0].downloaded_bytes


def test_cancel_deletes_the_partial_files(hub: FakeHub, data: bytes, tmp_path: Path) -> None:
    hub.state.hold_from = PART * 2
    mgr = manager(hub, tmp_path)
    try:
        download = mgr.enqueue(DownloadRequest(REPO, FILE))
        with download._cond:
            download._cond.wait_for(lambda: download._progress.done_bytes >= PART * 2, WAIT_S)
        download.cancel()
        hub.state.release.set()
        result = download.wait(WAIT_S)
    finally:
        mgr.close()
    assert result.status == "cancelled"
    path = installed(tmp_path)
    assert not path.exists() and not partial_path(path).exists() and not state_path(path).exists()
    assert list_partials(tmp_path) == []


def test_no_network_is_a_clear_error_at_once(tmp_path: Path) -> None:
    with FakeHub() as gone:
        endpoint = gone.endpoint  # a port that answers nothing once the hub is closed
    config = HubConfig(endpoint=endpoint, connect_timeout_s=2)
    mgr = DownloadManager(config, models=tmp_path, options=options())
    try:
        result = mgr.enqueue(DownloadRequest(REPO, FILE)).wait(WAIT_S)
    finally:
        mgr.close()
    assert result.status == "failed" and result.error_code == "network_unavailable"
    assert result.error is not None and "Cannot reach" in result.error
