"""What every runtime offers the engine: a backend that loads a model file or folder, and the
loaded model that chats, completes and counts tokens. The registry that finds one by name is
``engine/backends/__init__.py``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from engine.capabilities import Capabilities
from engine.tools import Tool
from engine.types import ChatMessage, Chunk, GenerationParams

if TYPE_CHECKING:
    from engine.planner.plan import Plan


# Called with the fraction loaded (0..1); returning False cancels the load.
LoadProgress = Callable[[float], bool]


class LoadedModel(Protocol):
    """A model resident in memory. ``close()`` returns its native memory."""

    @property
    def n_ctx(self) -> int: ...

    @property
    def capabilities(self) -> Capabilities:
        """What it can do, set when it loaded."""
        ...

    def count_tokens(self, messages: Sequence[ChatMessage], tools: Sequence[Tool] = ()) -> int: ...

    def chat(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]: ...

    def complete(
        self,
        prompt: str | Sequence[int],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]: ...

    def close(self) -> None: ...


class Backend(Protocol):
    name: str

    def availability(self) -> str | None:
        """None when usable here, else why not (for the user)."""
        ...

    def handles(self, path: Path) -> bool: ...

    def load(self, path: Path, plan: Plan, progress: LoadProgress | None = None) -> LoadedModel: ...
