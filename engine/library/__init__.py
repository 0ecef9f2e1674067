"""The model library: what is on disk (the starter, the models folder, imported files). The
curated catalog, search and downloads will live here too."""

# What the window uses, from the modules that hold it.
from engine.library.builds import is_installed
from engine.library.catalog import Catalog, CatalogModel, Variant, catalog_or_none, load_catalog
from engine.library.importing import Imported, import_model
from engine.library.in_use import processes_using
from engine.library.installed import (
    ModelEntry,
    ModelFormat,
    Removed,
    Source,
    remove_model,
    scan_models,
)
from engine.library.partial import PartialDownload, list_partials, remove_partial
from engine.library.projectors import projector_of
from engine.library.same_model import other_builds

__all__ = [
    "Catalog",
    "CatalogModel",
    "Imported",
    "ModelEntry",
    "ModelFormat",
    "PartialDownload",
    "Removed",
    "Source",
    "Variant",
    "catalog_or_none",
    "import_model",
    "is_installed",
    "list_partials",
    "load_catalog",
    "other_builds",
    "processes_using",
    "projector_of",
    "remove_model",
    "remove_partial",
    "scan_models",
]
