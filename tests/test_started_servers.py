"""A server a test starts ends with the test run, however the run ends: a ``cove serve`` started
through the tests' helper is gone soon after the process that started it is killed with SIGKILL
(a ``make test`` stopped midway), and its port is free again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psutil

from tests.orphans import kill_and_expect_ended
from tests.support.remote_process import ROOT, free_port

# A stand-in test run: starts a server with the tests' helper, says its id, waits to be killed.
_RUN = """
import sys
from pathlib import Path
from tests.support.remote_process import CoveProcess
server = CoveProcess(Path(sys.argv[1]), "serve", "--port", sys.argv[2], "--state-cache-mb", "0",
                     "--no-background-measuring")
server.wait_for("serving on http://")
print(server.proc.pid, flush=True)
sys.stdin.read()
"""


def test_a_server_a_test_started_ends_with_the_killed_run(tmp_path: Path) -> None:
    port = free_port()
    run = subprocess.Popen(
        [sys.executable, "-c", _RUN, str(tmp_path / "data"), str(port)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    server: psutil.Process | None = None
    try:
        assert run.stdout is not None
        line = run.stdout.readline()
        assert line.strip().isdigit(), f"the stand-in run did not start a server: {line!r}"
        server = psutil.Process(int(line))
        kill_and_expect_ended(run, [server], ports=[port])
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(30)
        if server is not None and server.is_running():
            server.kill()
