"""``cove serve`` as an API user meets it: start the server on a free port, ask for a chat reply
and an embedding, stop it. Prints one JSON line with what came back; exit 0 only if both did.

Run as ``python -m tests.e2e.serve_session EMBEDDING_FOLDER [LINGER_S]`` (inside a trace or a
network namespace, so that the server and this client are both in it). ``LINGER_S`` keeps the server
serving, idle, until that many seconds after its start: a server runs for hours, and background
work in a dependency (ONNX Runtime's telemetry uploader first wakes about 8 s after it starts) only
shows in a trace that lasts as long.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

import httpx

_SERVING = re.compile(r"serving on (http://\S+/v1)")


def main(embedding_model: str, linger_s: float) -> int:
    started = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--model", "starter", "--ctx", "2048",
         "--port", "0", "--embedding-model", embedding_model],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stderr is not None
    try:
        url = None
        for line in server.stderr:
            sys.stderr.write(line)
            match = _SERVING.search(line)
            if match:
                url = match.group(1)
                break
        if url is None:
            print(json.dumps({"ok": False, "error": "the server stopped before serving"}))
            return 1
        with httpx.Client(base_url=url, timeout=120) as client:
            chat = client.post(
                "/chat/completions",
                json={
                    "model": "starter",
                    "messages": [{"role": "user", "content": "What is the capital of France?"}],
                    "temperature": 0,
                    "max_tokens": 16,
                },
            )
            chat.raise_for_status()
            embedding = client.post("/embeddings", json={"input": ["a private question"]})
            embedding.raise_for_status()
        reply = chat.json()["choices"][0]["message"]["content"]
        vector = embedding.json()["data"][0]["embedding"]
        # An event no one sets: the idle server's lifetime, not a stand-in for a signal.
        threading.Event().wait(max(0.0, started + linger_s - time.monotonic()))
        print(json.dumps({"ok": True, "reply": reply, "dimensions": len(vector)}))
        return 0
    finally:
        server.terminate()
        server.communicate(timeout=30)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 0.0))
