"""Document Q&A: collections of the user's files, read by structure, indexed for keyword and
meaning, and answered from with citations to file, page and passage."""

# What the window uses, from the modules that hold it.
from engine.documents.answer import (
    NOT_FOUND,
    Grounding,
    cited,
    ground,
    matched,
    renumber,
    said_not_found,
    shown_numbers,
)
from engine.documents.answerable import judge
from engine.documents.encoder import Encoder, default_encoder_folder
from engine.documents.grounding import claims
from engine.documents.host_encoder import HostEncoder
from engine.documents.index_db import Collection, FileRecord, IndexDB
from engine.documents.indexer import FileOutcome, Indexer, IndexProgress, check_encoder
from engine.documents.ocr import ocr_installed
from engine.documents.portable import CollectionsPart
from engine.documents.readers import SUPPORTED_SUFFIXES
from engine.documents.retrieve import Retriever, Source
from engine.documents.watch import FolderWatcher

__all__ = [
    "NOT_FOUND",
    "SUPPORTED_SUFFIXES",
    "Collection",
    "CollectionsPart",
    "Encoder",
    "FileOutcome",
    "FileRecord",
    "FolderWatcher",
    "Grounding",
    "HostEncoder",
    "IndexDB",
    "IndexProgress",
    "Indexer",
    "Retriever",
    "Source",
    "check_encoder",
    "cited",
    "claims",
    "default_encoder_folder",
    "ground",
    "judge",
    "matched",
    "ocr_installed",
    "renumber",
    "said_not_found",
    "shown_numbers",
]
