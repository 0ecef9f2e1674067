"""A web page in a real browser (headless Chromium) uses ``cove serve``: a page served from another
loopback port streams a chat reply through ``fetch`` and shows it; the same page from an origin
that is not allowed cannot read anything and the engine runs nothing for it; allowed with
``--allow-origin``, it can.

The page reports what it got by posting it to the server it came from, which is what the test
waits on (the browser keeps running until then)."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CAPITAL_QUESTION, SYSTEM_PROMPT
from tests.support.prerequisites import missing as prerequisite
from tests.support.remote_process import CoveProcess, free_port

pytestmark = pytest.mark.slow

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
REPLY_TIMEOUT_S = 180
EVIL = "evil.test"

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>A page of another port</title></head>
<body><p id="reply"></p><script>
async function ask() {
  const out = {text: "", status: null, error: null};
  try {
    const answer = await fetch(COVE + "/v1/chat/completions", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({model: "starter", messages: MESSAGES, max_tokens: 16,
                            temperature: 0, stream: true}),
    });
    out.status = answer.status;
    const reader = answer.body.getReader();
    const decoder = new TextDecoder();
    let pending = "";
    for (;;) {
      const {done, value} = await reader.read();
      if (done) break;
      pending += decoder.decode(value, {stream: true});
      let end;
      while ((end = pending.indexOf("\\n\\n")) >= 0) {
        const event = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (!event.startsWith("data: {")) continue;
        const delta = JSON.parse(event.slice(6)).choices[0].delta;
        out.text += (delta && delta.content) || "";
        document.getElementById("reply").textContent = out.text;
      }
    }
  } catch (error) {
    out.error = String(error);
  }
  await fetch("/result", {method: "POST", body: JSON.stringify(out)});
}
ask();
</script></body></html>
"""


class Pages:
    """A web server on a loopback port of its own: the page at ``/``, what it reports at
    ``/result``."""

    def __init__(self, cove_url: str) -> None:
        self.results: queue.Queue[dict[str, Any]] = queue.Queue()
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": CAPITAL_QUESTION},
        ]
        script = f"const COVE = {json.dumps(cove_url)};\nconst MESSAGES = {json.dumps(messages)};\n"
        page = PAGE.replace("<script>\n", "<script>\n" + script, 1).encode()
        results = self.results

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                results.put(json.loads(self.rfile.read(length)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def open_page(url: str, pages: Pages, profile: Path) -> dict[str, Any]:
    """What the page at ``url`` reports, loaded in headless Chromium (ended once it reported)."""
    assert CHROMIUM is not None
    browser = subprocess.Popen(
        [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--no-default-browser-check", "--no-proxy-server",
         f"--user-data-dir={profile}", f"--host-resolver-rules=MAP {EVIL} 127.0.0.1", url],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        return pages.results.get(timeout=REPLY_TIMEOUT_S)
    finally:
        os.killpg(browser.pid, signal.SIGTERM)
        try:
            browser.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(browser.pid, signal.SIGKILL)
            browser.wait(30)


@pytest.fixture
def pages() -> Iterator[tuple[Pages, Pages, str]]:
    """Cove serving with one of two page servers' ``evil.test`` origins allowed."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    refused, allowed = Pages(url), Pages(url)
    try:
        yield refused, allowed, str(port)
    finally:
        refused.close()
        allowed.close()


@pytest.mark.usefixtures("starter")
def test_a_browser_page_streams_from_allowed_origins_only(
    tmp_path: Path, pages: tuple[Pages, Pages, str]
) -> None:
    if CHROMIUM is None:
        prerequisite("Chromium is not installed (apt-get install chromium)")
    refused, allowed, port = pages
    cove = CoveProcess(
        tmp_path / "data", "serve", "--model", "starter", "--ctx", "1024", "--port", port,
        "--allow-origin", f"http://{EVIL}:{allowed.port}",
    )  # fmt: skip
    try:
        cove.wait_for("serving on http://")
        shut_out = open_page(f"http://{EVIL}:{refused.port}/", refused, tmp_path / "p1")
        assert shut_out["text"] == "" and shut_out["status"] is None
        assert shut_out["error"] and "fetch" in shut_out["error"].lower()
        cove.wait_for(f"from the web origin http://{EVIL}:{refused.port} (not allowed")
        assert "POST /v1/chat/completions" not in cove.log  # it ran nothing

        local = open_page(f"http://127.0.0.1:{refused.port}/", refused, tmp_path / "p2")
        assert local["error"] is None and local["status"] == 200
        assert "Paris" in local["text"]

        named = open_page(f"http://{EVIL}:{allowed.port}/", allowed, tmp_path / "p3")
        assert named["error"] is None and named["status"] == 200
        assert "Paris" in named["text"]
        cove.wait_for_count("POST /v1/chat/completions 200", 2)
    finally:
        cove.stop()
