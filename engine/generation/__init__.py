# What the window uses, from the modules that hold it.
from engine.generation.state_cache import DEFAULT_LIMIT_BYTES, StateCache

__all__ = ["DEFAULT_LIMIT_BYTES", "StateCache"]
