"""One lock for llama.cpp's process-wide state: its backend registry and devices are set up on
first use and are not safe to read while another thread sets them up or loads a model. The
hardware probe (which lists ggml's devices) and model loading take it; generation does not."""

from __future__ import annotations

import threading

GGML_LOCK = threading.RLock()
