"""The Models view's Discover tab: the catalog's models and Hugging Face search, each with what
fits here and how fast it would reply (``view.py``), one card per model or repository
(``cards.py``)."""

from app.models.discover.view import DiscoverView

__all__ = ["DiscoverView"]
