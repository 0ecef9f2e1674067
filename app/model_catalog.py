"""Installed models (the starter, the models folder, imported files) and the planner's verdict on
each, in words. Qt-free: the views call these from worker threads."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

MODELS_DIR_ENV = "COVE_MODELS_DIR"
IMPORTED_SETTING = "imported_models"
ONNX_MARKER = "genai_config.json"

Source = Literal["starter", "folder", "imported"]
Level = Literal["ok", "warn", "bad", "unknown"]


@dataclass(frozen=True, slots=True)
class ModelEntry:
    id: str  # what the engine is asked to load: "starter" or a path
    name: str
    kind: Literal["GGUF", "ONNX"]
    size_bytes: int
    path: Path
    source: Source
    quantization: str = ""  # what the file says it is: Q4_K_M, IQ4_XS, ... (GGUF only)
    tensor_types: str = ""  # the mix behind it: "Q8_0 45 %, Q4_K 40 %, Q6_K 15 %"


@dataclass(frozen=True, slots=True)
class Verdict:
    text: str  # "Fits", "Fits at 4k context", "Won't fit: needs 9.1 GB, 6.2 GB free"
    level: Level
    details: tuple[str, ...] = ()  # the breakdown and the planner's reasons


def models_dir() -> Path:
    override = os.environ.get(MODELS_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return platformdirs.user_data_path("Cove", appauthor=False) / "models"


def human_bytes(n: float) -> str:
    if n >= 1024**3:
        return f"{n / 1024**3:.1f} GB"
    if n >= 1024**2:
        return f"{n / 1024**2:.0f} MB"
    return f"{n / 1024:.0f} KB"


def short_tokens(n: int) -> str:
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def _folder_size(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        if path.is_file():
            total += path.stat().st_size
    return total


def _gguf_entry(model_id: str, name: str, path: Path, source: Source) -> ModelEntry:
    """A GGUF file's entry, with the quantization its header declares (read without the
    weights); a file whose header cannot be read is listed anyway, and its plan says why."""
    from engine.errors import ModelLoadError
    from engine.gguf import describe_mix, read_gguf

    entry = ModelEntry(model_id, name, "GGUF", path.stat().st_size, path, source)
    try:
        info = read_gguf(path)
    except ModelLoadError:
        return entry
    mix = describe_mix(dict(info.tensor_types()))
    return replace(entry, quantization=info.quantization(), tensor_types=mix)


def _entry(path: Path, source: Source) -> ModelEntry | None:
    try:
        if path.is_file() and path.suffix.lower() == ".gguf":
            return _gguf_entry(str(path), path.stem, path, source)
        if path.is_dir() and (path / ONNX_MARKER).is_file():
            return ModelEntry(str(path), path.name, "ONNX", _folder_size(path), path, source)
    except OSError:
        return None
    return None


def scan_models(folder: Path | None = None, imported: Iterable[str] = ()) -> list[ModelEntry]:
    """The starter, then models in ``folder`` (GGUF files and ONNX model folders, one level
    deep, as downloads and imports lay them out), then imported paths that still exist."""
    from engine.errors import ModelNotFound
    from engine.models import STARTER_NAME, starter_path

    found: list[ModelEntry] = []
    seen: set[Path] = set()
    try:
        starter = starter_path()
        found.append(
            _gguf_entry(STARTER_NAME, "SmolLM2 135M Instruct (starter)", starter, "starter")
        )
        seen.add(starter.absolute())
    except (ModelNotFound, OSError):
        pass
    folder = folder if folder is not None else models_dir()
    candidates: list[tuple[Path, Source]] = []
    if folder.is_dir():
        for child in sorted(folder.iterdir(), key=lambda p: p.name.lower()):
            candidates.append((child, "folder"))
            if child.is_dir() and not (child / ONNX_MARKER).is_file():
                candidates += [(p, "folder") for p in sorted(child.glob("*.gguf"))]
    candidates += [(Path(p).expanduser(), "imported") for p in imported]
    for path, source in candidates:
        entry = _entry(path, source)
        if entry is None:
            continue
        key = path.absolute()
        if key in seen:
            continue
        seen.add(key)
        found.append(entry)
    return found


def _budget_line(b: dict[str, Any]) -> str:
    parts = {k: int(b.get(k, 0)) for k in ("weights", "kv_cache", "compute", "overhead")}
    return (
        f"{b.get('device')}: weights {human_bytes(parts['weights'])} + KV cache "
        f"{human_bytes(parts['kv_cache'])} + compute {human_bytes(parts['compute'])} + runtime "
        f"{human_bytes(parts['overhead'])} = {human_bytes(sum(parts.values()))} of "
        f"{human_bytes(int(b.get('free', 0)))} free"
    )


def verdict_from_plan(plan: dict[str, Any]) -> Verdict:
    """The planner's verdict for this machine, in the words the model list shows."""
    verdict = plan.get("verdict")
    n_ctx = int(plan.get("n_ctx") or 0)
    requested = int(plan.get("requested_ctx") or n_ctx)
    device = str(plan.get("device") or "CPU")
    budgets = [b for b in plan.get("budgets") or () if isinstance(b, dict)]
    backend = plan.get("backend")
    details = [f"Runs with {backend} on {device}, {n_ctx:,}-token context"] if backend else []
    details += [_budget_line(b) for b in budgets]
    details += [str(r) for r in plan.get("reasons") or ()]
    if verdict == "fits":
        return Verdict(f"Fits ({device}, {short_tokens(n_ctx)} context)", "ok", tuple(details))
    if verdict == "fits_reduced_context":
        text = f"Fits at {short_tokens(n_ctx)} context"
        if requested > n_ctx:
            text += f" (not {short_tokens(requested)})"
        return Verdict(text, "warn", tuple(details))
    if verdict == "partial_offload":
        layers = int(plan.get("gpu_layers") or 0)
        total = int(plan.get("n_layers") or 0) + 1
        return Verdict(
            f"Fits with {layers} of {total} layers on the GPU (slower)", "warn", tuple(details)
        )
    if verdict == "does_not_fit":
        need = int(plan.get("total_bytes") or 0)
        free = max((int(b.get("free", 0)) for b in budgets), default=0)
        return Verdict(
            f"Won't fit: needs {human_bytes(need)}, {human_bytes(free)} free", "bad", tuple(details)
        )
    return Verdict("Unknown", "unknown", tuple(details))


def verdict_from_error(message: str) -> Verdict:
    first = message.strip().split(". ")[0].strip().rstrip(".")
    return Verdict(f"Can't check: {first}", "unknown", (message,))
