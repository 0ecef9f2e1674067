"""The chat models and encoders the host holds: the resident ones and their turns, loading them
by name and on demand, running a reply on one, and ``--parallel auto``."""
