"""The model library: what is on disk (the starter, the models folder, imported files). The
curated catalog, search and downloads will live here too."""

from engine.library.installed import ModelEntry, ModelFormat, Source, scan_models

__all__ = ["ModelEntry", "ModelFormat", "Source", "scan_models"]
