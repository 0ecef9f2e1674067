"""The model catalog (``assets/catalog.json``): chat, embedding and reranking models people use,
each with the builds ("variants") their publishers ship: GGUF quants for llama.cpp, and ONNX
folders for onnxruntime-genai targeting one execution provider (CPU, CUDA, DirectML, an NPU).

The file holds names and facts only (repositories, files, context, licence, the architecture numbers
the planner needs, a vision build's projector file); sizes and SHA-256s come from the hub when the
user browses (``engine/hub/meta.py``). ``checked`` marks entries whose names were verified
against the hub's listings when the catalog was written.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, cast, get_args

from engine.errors import CatalogError
from engine.paths import assets_dir

Kind = Literal["chat", "embedding", "reranker"]
Format = Literal["gguf", "onnx", "onnx-encoder"]
Provider = Literal["cpu", "cuda", "dml", "qnn", "openvino", "vitisai", "webgpu"]
Target = Literal[
    "cpu-int4",
    "cuda-int4",
    "cuda-fp16",
    "directml-int4",
    "qnn-npu",
    "openvino-npu",
    "openvino-gpu",
    "vitisai-npu",
    "webgpu",
]
SCHEMA = 1
CATALOG_FILENAME = "catalog.json"
CATALOG_ENV = "COVE_CATALOG"
_ID = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
_REPO = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_QUANT = re.compile(r"^(I?Q\d+(_[A-Z0-9]+)*|B?F16|F32)$")

# Bits per weight of llama.cpp's quantisation types, for a size estimate before the hub has said
# (block size and scales included: ggml-common.h block layouts; the K-quant mixes as llama.cpp's
# quantize tool reports them for Llama-class models).
BITS_PER_WEIGHT: dict[str, float] = {
    "Q2_K": 3.35,
    "Q3_K_M": 3.91,
    "Q4_0": 4.55,
    "Q4_K_S": 4.58,
    "Q4_K_M": 4.89,
    "Q5_K_S": 5.54,
    "Q5_K_M": 5.70,
    "Q6_K": 6.56,
    "Q8_0": 8.50,
    "F16": 16.0,
    "BF16": 16.0,
}
# ONNX builds: int4 block-wise weights with fp16/fp32 embeddings and scales, fp16 for the rest.
ONNX_BITS_PER_WEIGHT: dict[str, float] = {"cuda-fp16": 16.0}
ONNX_INT4_BITS = 5.5


@dataclass(frozen=True, slots=True)
class Arch:
    """The numbers the planner needs, from the model's ``config.json``."""

    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    embedding: int
    ffn: int
    vocab: int
    sliding_window: int | None = None
    swa_period: int | None = None
    checked: bool = False


@dataclass(frozen=True, slots=True)
class Variant:
    format: Format
    repo: str
    file: str | None = None  # gguf
    quant: str | None = None  # gguf
    folder: str | None = None  # onnx: the folder holding genai_config.json ("" = the root)
    target: Target | None = None  # onnx
    provider: Provider | None = None  # onnx
    files: tuple[str, ...] = ()  # onnx-encoder
    gated: bool = False
    checked: bool = False
    # gguf: the vision projector (an ``mmproj`` GGUF) in the same repository, downloaded with the
    # model into the same folder, where ``engine.formats.gguf.projector.find_projector`` finds it.
    projector: str | None = None

    @property
    def vision(self) -> bool:
        return self.projector is not None

    @property
    def key(self) -> str:
        """What ``cove pull`` takes for exactly this build."""
        if self.format == "gguf":
            return f"{self.repo}/{self.file}"
        if self.format == "onnx" and self.folder:
            return f"{self.repo}/{self.folder}"
        return self.repo

    @property
    def label(self) -> str:
        if self.format == "gguf":
            return str(self.quant)
        if self.format == "onnx":
            return f"ONNX {self.target}"
        return "ONNX"

    def estimated_bytes(self, params_b: float) -> int:
        """The download's size from the parameter count, for before the hub has said."""
        if self.format == "gguf":
            bits = BITS_PER_WEIGHT.get(str(self.quant), 8.5)
        elif self.format == "onnx":
            bits = ONNX_BITS_PER_WEIGHT.get(str(self.target), ONNX_INT4_BITS)
        else:
            bits = 32.0
        return int(params_b * 1e9 * bits / 8)


@dataclass(frozen=True, slots=True)
class CatalogModel:
    id: str
    name: str
    kind: Kind
    publisher: str
    params_b: float
    context_length: int
    license: str
    description: str
    variants: tuple[Variant, ...]
    arch: Arch | None = None
    gated: bool = False
    # Smaller models of the same family and vocabulary that can draft for this one (speculative
    # decoding); the files' vocabularies are still compared before one is used
    # (engine/advice/drafts.py).
    drafts: tuple[str, ...] = ()

    @property
    def vision(self) -> bool:
        """Some build of it reads images (it ships a vision projector)."""
        return any(v.vision for v in self.variants)

    def variant(self, key: str) -> Variant | None:
        """A variant by its key, its quant (``Q5_K_M``) or its ONNX target (``cpu-int4``)."""
        wanted = key.strip().upper()
        for v in self.variants:
            if key == v.key or wanted in (str(v.quant).upper(), str(v.target).upper()):
                return v
        return None

    def matches(self, words: list[str]) -> bool:
        fields = (self.id, self.name, self.publisher, self.kind, self.description)
        text = " ".join((*fields, "vision") if self.vision else fields).lower()
        text += " " + " ".join(v.repo.lower() for v in self.variants)
        return all(w in text for w in words)


@dataclass(frozen=True, slots=True)
class Catalog:
    models: tuple[CatalogModel, ...]

    def get(self, model_id: str) -> CatalogModel | None:
        wanted = model_id.strip().lower()
        return next((m for m in self.models if m.id == wanted), None)

    def search(self, query: str) -> list[CatalogModel]:
        words = [w for w in re.split(r"\s+", query.lower().strip()) if w]
        return [m for m in self.models if m.matches(words)]

    def model_of(self, repo: str) -> CatalogModel | None:
        """The catalog model one of whose builds lives in ``repo``."""
        return next((m for m in self.models for v in m.variants if v.repo == repo), None)


def catalog_path() -> Path:
    """The shipped catalog; ``COVE_CATALOG`` names another file (tests, a curated list)."""
    override = os.environ.get(CATALOG_ENV)
    return Path(override).expanduser() if override else assets_dir() / CATALOG_FILENAME


def load_catalog(path: Path | None = None) -> Catalog:
    """The catalog, checked entry by entry; ``CatalogError`` names the first problem."""
    return _load(path or catalog_path())


def catalog_or_none() -> Catalog | None:
    """The catalog, or None when its file is missing or malformed: for what goes on without it."""
    try:
        return load_catalog()
    except CatalogError:
        return None


@cache
def _load(path: Path) -> Catalog:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogError(f"The model catalog {path} cannot be read ({exc}).") from None
    except ValueError as exc:
        raise CatalogError(f"The model catalog {path} is not valid JSON ({exc}).") from None
    return parse_catalog(raw)


def parse_catalog(raw: Any) -> Catalog:
    if not isinstance(raw, dict) or raw.get("schema") != SCHEMA:
        raise CatalogError(f"The model catalog is not schema {SCHEMA}.")
    models = raw.get("models")
    if not isinstance(models, list) or not models:
        raise CatalogError("The model catalog lists no models.")
    parsed = [_model(m, i) for i, m in enumerate(models)]
    ids = [m.id for m in parsed]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise CatalogError(f"The model catalog lists {dup!r} twice.")
    for m in parsed:
        unknown = [d for d in m.drafts if d not in ids]
        if unknown:
            raise CatalogError(f"Catalog model {m.id!r} names an unknown draft {unknown[0]!r}.")
    return Catalog(tuple(parsed))


class _Fields:
    """Typed reads of one JSON object, each failure naming the entry and the field."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise CatalogError(f"{where} is not an object.")
        self.data: dict[str, Any] = data
        self.where = where

    def fail(self, key: str, what: str) -> CatalogError:
        return CatalogError(f"{self.where}: {key} {what}.")

    def text(self, key: str, pattern: re.Pattern[str] | None = None) -> str:
        value = self.data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "must be a non-empty string")
        if pattern is not None and not pattern.match(value):
            raise self.fail(key, f"is not valid ({value!r})")
        return value

    def optional_text(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self.fail(key, "must be a string")
        return value

    def count(self, key: str, low: int = 1, high: int = 1 << 24) -> int:
        value = self.data.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise self.fail(key, f"must be a whole number from {low} to {high}")
        return value

    def optional_count(self, key: str) -> int | None:
        return None if self.data.get(key) is None else self.count(key)

    def flag(self, key: str) -> bool:
        value = self.data.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(key, "must be true or false")
        return value

    def choice(self, key: str, options: Any) -> str:
        value = self.text(key)
        if value not in get_args(options):
            raise self.fail(key, f"must be one of {', '.join(get_args(options))}")
        return value


def _model(data: Any, index: int) -> CatalogModel:
    f = _Fields(data, f"catalog model #{index + 1}")
    model_id = f.text("id", _ID)
    f.where = f"catalog model {model_id!r}"
    kind = cast(Kind, f.choice("kind", Kind))
    params = f.data.get("params_b")
    if not isinstance(params, int | float) or isinstance(params, bool) or not 0 < params < 1000:
        raise f.fail("params_b", "must be a number of billions")
    description = f.text("description")
    if "\n" in description or len(description) > 160:
        raise f.fail("description", "must be one line")
    raw_variants = f.data.get("variants")
    if not isinstance(raw_variants, list) or not raw_variants:
        raise f.fail("variants", "must list at least one build")
    variants = tuple(_variant(v, f"{f.where} variant #{i + 1}") for i, v in enumerate(raw_variants))
    if len({v.key for v in variants}) != len(variants):
        raise f.fail("variants", "lists one build twice")
    arch = _arch(f.data["arch"], f"{f.where} arch") if f.data.get("arch") is not None else None
    if kind == "chat" and arch is None:
        raise f.fail("arch", "is required for a chat model")
    if kind == "chat" and any(v.format == "onnx-encoder" for v in variants):
        raise f.fail("variants", "of a chat model cannot be encoders")
    if kind != "chat" and any(v.format != "onnx-encoder" for v in variants):
        raise f.fail("variants", f"of a {kind} model must be onnx-encoder builds")
    return CatalogModel(
        id=model_id,
        name=f.text("name"),
        kind=kind,
        publisher=f.text("publisher"),
        params_b=float(params),
        context_length=f.count("context_length", 128, 1 << 22),
        license=f.text("license"),
        description=description,
        variants=variants,
        arch=arch,
        gated=f.flag("gated"),
        drafts=_drafts(f, model_id),
    )


def _drafts(f: _Fields, model_id: str) -> tuple[str, ...]:
    raw = f.data.get("drafts", [])
    if not isinstance(raw, list) or not all(isinstance(d, str) and d for d in raw):
        raise f.fail("drafts", "must be a list of catalog ids")
    if model_id in raw:
        raise f.fail("drafts", "cannot name the model itself")
    return tuple(raw)


def _variant(data: Any, where: str) -> Variant:
    f = _Fields(data, where)
    fmt = cast(Format, f.choice("format", Format))
    repo = f.text("repo", _REPO)
    gated, checked = f.flag("gated"), f.flag("checked")
    if fmt != "gguf" and f.data.get("projector") is not None:
        raise f.fail("projector", "is only for GGUF builds")
    if fmt == "gguf":
        file = f.text("file")
        if not file.lower().endswith(".gguf") or ".." in file.split("/"):
            raise f.fail("file", "must be a .gguf file in the repository")
        quant = f.text("quant", _QUANT)
        projector = _projector(f, file)
        return Variant(
            "gguf",
            repo,
            file=file,
            quant=quant,
            gated=gated,
            checked=checked,
            projector=projector,
        )
    if fmt == "onnx":
        folder = f.optional_text("folder")
        if folder is None or ".." in folder.split("/") or folder.startswith("/"):
            raise f.fail("folder", "must name a folder in the repository ('' for its root)")
        return Variant(
            "onnx",
            repo,
            folder=folder.strip("/"),
            target=cast(Target, f.choice("target", Target)),
            provider=cast(Provider, f.choice("provider", Provider)),
            gated=gated,
            checked=checked,
        )
    files = f.data.get("files")
    if not isinstance(files, list) or not files or not all(isinstance(p, str) for p in files):
        raise f.fail("files", "must list the files of the build")
    if not any(p.endswith(".onnx") for p in files):
        raise f.fail("files", "must include the .onnx graph")
    return Variant("onnx-encoder", repo, files=tuple(files), gated=gated, checked=checked)


def _projector(f: _Fields, file: str) -> str | None:
    """A GGUF build's vision projector: a .gguf file of the same repository, other than the model,
    with ``mmproj`` in its name (what the loader looks for beside the model)."""
    if f.data.get("projector") is None:
        return None
    projector = f.text("projector")
    name = projector.rsplit("/", 1)[-1].lower()
    if not name.endswith(".gguf") or ".." in projector.split("/") or projector.startswith("/"):
        raise f.fail("projector", "must be a .gguf file in the build's repository")
    if "mmproj" not in name:
        raise f.fail("projector", f"must have 'mmproj' in its name ({projector!r})")
    if projector == file:
        raise f.fail("projector", "cannot be the model file itself")
    return projector


def _arch(data: Any, where: str) -> Arch:
    f = _Fields(data, where)
    heads = f.count("heads", 1, 1024)
    layers = f.count("layers", 1, 1024)
    period = f.optional_count("swa_period")
    if period is not None and period > layers:
        raise f.fail("swa_period", "is longer than the model")
    return Arch(
        layers=layers,
        heads=heads,
        kv_heads=f.count("kv_heads", 1, heads),
        head_dim=f.count("head_dim", 1, 4096),
        embedding=f.count("embedding", 1, 1 << 17),
        ffn=f.count("ffn", 1, 1 << 20),
        vocab=f.count("vocab", 1, 1 << 22),
        sliding_window=f.optional_count("sliding_window"),
        swa_period=period,
        checked=f.flag("checked"),
    )
