"""A conversation's images as the model gets them, for every turn that sends the history again.

Earlier images are part of the conversation: each reply sends them again, read from the files
the chat keeps (engine/store) and prepared by engine/images.py. The last few are kept prepared,
so a follow-up question about a photo does not decode it again.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from engine.errors import EngineError

if TYPE_CHECKING:
    from engine.store import Store, StoredImage
    from engine.types import ImageInput

log = logging.getLogger(__name__)

KEEP = 8  # prepared images held (each at most 2048 x 2048 RGB, 12 MB)


class ModelImages:
    """Prepared images by the SHA-256 of their file; safe to share between worker threads."""

    def __init__(self, keep: int = KEEP) -> None:
        self._keep = keep
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, ImageInput] = OrderedDict()

    def remember(self, sha256: str, image: ImageInput) -> None:
        with self._lock:
            self._kept[sha256] = image
            self._kept.move_to_end(sha256)
            while len(self._kept) > self._keep:
                self._kept.popitem(last=False)

    def load(self, store: Store, stored: StoredImage) -> ImageInput | None:
        """The image as the model gets it; None (and a line in the log) when its file is gone
        or no longer reads: the rest of the conversation still goes."""
        with self._lock:
            kept = self._kept.get(stored.sha256)
            if kept is not None:
                self._kept.move_to_end(stored.sha256)
                return kept
        from engine.images import read_image

        try:
            image = read_image(store.image_bytes(stored), stored.name or "an image of this chat")
        except EngineError as exc:
            log.warning("an earlier image of the chat was left out: %s", exc)
            return None
        self.remember(stored.sha256, image)
        return image
