"""Typed errors. Every message says what happened and what the user can do about it.

Each class has a stable ``code``: it crosses the process boundary in error bodies and in a stream's
terminal chunk (``Chunk.code``), and it is what callers check, never the message text.
"""

from __future__ import annotations

from typing import Protocol


class PlanData(Protocol):
    """What an error needs of a memory plan (``engine.planner.plan.Plan`` is one): its verdict, and
    its JSON form for an error body. Named by shape: errors carry data and import none of the
    modules that raise them or make what they carry."""

    @property
    def verdict(self) -> str: ...

    def to_dict(self) -> dict[str, object]: ...


class EngineError(Exception):
    """Root of every error Cove's engine raises on purpose."""

    code = "engine_error"


class ModelNotFound(EngineError):
    """A model name or path does not point at a usable file."""

    code = "model_not_found"


class ModelLoadError(EngineError):
    """A model file is malformed, unsupported, or the runtime refused it."""

    code = "model_load_error"


class LoadCancelled(EngineError):
    """The user cancelled loading a model; nothing stays allocated."""

    code = "load_cancelled"


class InsufficientMemory(EngineError):
    """The model (at the requested context) does not fit in the memory that is free."""

    code = "insufficient_memory"

    def __init__(self, message: str, plan: PlanData | None = None) -> None:
        super().__init__(message)
        self.plan = plan


class TemplateError(EngineError):
    """A chat template is missing, broken, or tried to do something it must not."""

    code = "template_error"


class BackendUnavailable(EngineError):
    """The runtime a model needs is not installed or cannot run on this machine."""

    code = "backend_unavailable"


class ContextOverflow(EngineError):
    """Even the newest message alone cannot fit in the model's context window."""

    code = "context_overflow"


class GenerationError(EngineError):
    """The runtime failed while processing the prompt or generating tokens."""

    code = "generation_error"


class InvalidRequest(EngineError):
    """A request to the engine is malformed: a missing field, a wrong type, a value out of range."""

    code = "invalid_request"


class VisionUnavailable(InvalidRequest):
    """Images were sent to a model that cannot see them (a text model, or a vision model whose
    projector is missing)."""

    code = "vision_unavailable"


class EngineBusy(EngineError):
    """The engine's queue is full; try again shortly."""

    code = "engine_busy"


class EngineAuthError(EngineError):
    """The engine refused the request's API key."""

    code = "unauthorized"


class CertificateChanged(EngineError):
    """A remote engine or worker shows another certificate than the one pinned on first use."""

    code = "certificate_changed"


class EngineUnreachable(EngineError):
    """The engine's address does not answer (a remote server down, a wrong URL)."""

    code = "engine_unreachable"


class EngineCrashed(EngineError):
    """The local engine process died (a crash in native code, an out-of-memory kill)."""

    code = "engine_crashed"


class ProtocolError(EngineError):
    """The engine answered something this version of Cove cannot read."""

    code = "protocol_error"


class DownloadError(EngineError):
    """A download failed after its retries (the server kept failing, the connection kept dropping,
    the file changed on the server); what was fetched so far is kept for a resume."""

    code = "download_error"


class ChecksumMismatch(EngineError):
    """A downloaded file's SHA-256 differs from the one the hub published; it was not installed."""

    code = "checksum_mismatch"


class InsufficientDisk(EngineError):
    """There is not enough free disk space for a download (the file plus a safety margin)."""

    code = "insufficient_disk"


class HubAuthRequired(EngineError):
    """The repository is gated or private: it needs a Hugging Face token with access to it."""

    code = "hub_auth_required"


class HubNotFound(EngineError):
    """The repository, revision or file does not exist on the hub."""

    code = "hub_not_found"


class NetworkUnavailable(EngineError):
    """The hub (or the configured mirror or proxy) cannot be reached at all."""

    code = "network_unavailable"


class DownloadCancelled(EngineError):
    """The user cancelled a download; its partial files were deleted."""

    code = "download_cancelled"


class ModelInUse(EngineError):
    """A model cannot be deleted while it is loaded."""

    code = "model_in_use"


class DocumentError(EngineError):
    """A document cannot be read at all: encrypted, damaged, not what its name says, empty."""

    code = "document_error"


class McpConfigError(EngineError):
    """An MCP server list (``mcp.json``) that cannot be read: the message names the entry."""

    code = "mcp_config_error"


class StoreError(EngineError):
    """The chat history could not be opened, read or written."""

    code = "store_error"


class HistoryDiskFull(StoreError):
    """The disk holding the chat history is full: nothing half-written was kept, and what could
    not be saved yet is saved once there is room."""

    code = "history_disk_full"


class HistoryDamaged(StoreError):
    """The chat history's file is damaged; it is moved aside and rebuilt from its backup and the
    rows it still holds."""

    code = "history_damaged"


class DocumentIndexError(EngineError):
    """The document index could not be opened, read or written."""

    code = "document_index_error"


class IndexCancelled(EngineError):
    """The user stopped indexing a collection; the files indexed so far stay indexed."""

    code = "index_cancelled"


class OcrUnavailable(DocumentError):
    """A scanned page needs OCR and Cove's OCR extra is not installed (or cannot load)."""

    code = "ocr_unavailable"


class EvaluationCancelled(EngineError):
    """The user stopped an evaluation between two requests."""

    code = "cancelled"


class CatalogError(EngineError):
    """The catalog file is missing or malformed."""

    code = "catalog_error"


class ImageError(InvalidRequest):
    """An image that cannot be read, said in the user's terms."""

    code = "invalid_image"


class PayloadTooLarge(InvalidRequest):
    """A request body past the server's size limit (a 413)."""

    code = "payload_too_large"


class UnsupportedMediaType(InvalidRequest):
    """A request body that is not JSON (a 415)."""

    code = "unsupported_media_type"


class ResponseNotFound(ModelNotFound):
    """A ``previous_response_id`` or a fetched id that this server does not keep (a 404)."""

    code = "response_not_found"


# --- signals inside one part of the engine ------------------------------------------------------
# These never cross the process: the part that raises them also catches them, and says what
# happened in its own terms (a device missing from the hardware report, a part fetched again, a
# chat left out of an import).


class ProbeUnavailable(Exception):
    """Raised by a hardware probe when what it looks for is not there; the message is the user's
    reason."""


class NoRanges(Exception):
    """The server answered a ranged request with the whole file."""


class Halted(Exception):
    """A pause or a cancel stopped the fetching."""


class RetryLater(Exception):
    """A part's request failed in a way worth trying again, after ``retry_after`` seconds when
    the server said so."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class ArchiveError(ValueError):
    """The archive is not one Cove can import; the message says what is wrong."""


class NewerArchive(ArchiveError):
    """The archive was written by a newer Cove."""
