"""Kept for scripts written against the module's earlier path: ``engine.client.protocol``."""

from engine.client.protocol import *  # noqa: F403
