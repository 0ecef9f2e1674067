"""Kept for scripts written against the module's earlier path: ``engine.client.local``."""

from engine.client.local import LocalEngine as LocalEngine
