"""A model's quantization in plain words: "Q4_K_M" is "4-bit, medium quality".

The names are llama.cpp's: its file types (``general.file_type``, as llama-quantize names them:
Q4_K_M, IQ3_XS, ...) and its tensor types (enum ggml_type: Q4_K, Q6_K, F32, ...), and the
precisions ONNX builds are named by (int4, fp16). The quality words rank the types by how far
llama-quantize's own measurements put each from the unquantized model: 8-bit is all but
indistinguishable from it, 6-bit and 5-bit lose little, 4-bit is the usual trade of quality for
size, 3-bit and 2-bit lose more and more.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

ORIGINAL = "original quality"
NEAR_ORIGINAL = "near original quality"
VERY_HIGH = "very high quality"
HIGH = "high quality"
MEDIUM = "medium quality"
LOW = "low quality"
LOWEST = "lowest quality"
TERNARY = "for models trained at this precision"

# name -> (bits, quality). File types and tensor types share most names; a K-quant's tensor type
# (Q4_K) is its file type's main type (Q4_K_S, Q4_K_M), so it reads as that.
# fmt: off
_TYPES: dict[str, tuple[str, str]] = {
    "F64": ("64-bit", ORIGINAL), "F32": ("32-bit", ORIGINAL), "ALL_F32": ("32-bit", ORIGINAL),
    "F16": ("16-bit", ORIGINAL), "BF16": ("16-bit", ORIGINAL),
    "Q8_0": ("8-bit", NEAR_ORIGINAL), "Q8_1": ("8-bit", NEAR_ORIGINAL),
    "Q8_K": ("8-bit", NEAR_ORIGINAL),
    "Q6_K": ("6-bit", VERY_HIGH),
    "Q5_K_M": ("5-bit", HIGH), "Q5_K_S": ("5-bit", HIGH), "Q5_K": ("5-bit", HIGH),
    "Q5_0": ("5-bit", HIGH), "Q5_1": ("5-bit", HIGH),
    "Q4_K_M": ("4-bit", MEDIUM), "Q4_K_S": ("4-bit", MEDIUM), "Q4_K": ("4-bit", MEDIUM),
    "Q4_0": ("4-bit", MEDIUM), "Q4_1": ("4-bit", MEDIUM),
    "IQ4_XS": ("4-bit", MEDIUM), "IQ4_NL": ("4-bit", MEDIUM),
    "MXFP4": ("4-bit", MEDIUM), "MXFP4_MOE": ("4-bit", MEDIUM), "NVFP4": ("4-bit", MEDIUM),
    "Q3_K_L": ("3-bit", LOW), "Q3_K_M": ("3-bit", LOW), "Q3_K_S": ("3-bit", LOW),
    "Q3_K": ("3-bit", LOW), "IQ3_M": ("3-bit", LOW), "IQ3_S": ("3-bit", LOW),
    "IQ3_XS": ("3-bit", LOW), "IQ3_XXS": ("3-bit", LOW),
    "Q2_K": ("2-bit", LOWEST), "Q2_K_S": ("2-bit", LOWEST), "IQ2_M": ("2-bit", LOWEST),
    "IQ2_S": ("2-bit", LOWEST), "IQ2_XS": ("2-bit", LOWEST), "IQ2_XXS": ("2-bit", LOWEST),
    "IQ1_M": ("1-bit", LOWEST), "IQ1_S": ("1-bit", LOWEST), "Q1_0": ("1-bit", LOWEST),
    "TQ2_0": ("2-bit", TERNARY), "TQ1_0": ("1.6-bit", TERNARY),
    # Whole numbers: indices and masks beside the weights, not weights themselves.
    "I8": ("8-bit", ""), "I16": ("16-bit", ""), "I32": ("32-bit", ""), "I64": ("64-bit", ""),
}
# fmt: on
# A K-quant or i-quant's bits decide its quality when its exact name is not in the table (a
# quantizer's own mix such as "UD-Q4_K_XL" still names its main type).
_BY_BITS = {8: NEAR_ORIGINAL, 6: VERY_HIGH, 5: HIGH, 4: MEDIUM, 3: LOW, 2: LOWEST, 1: LOWEST}
_QUANT_IN_NAME = re.compile(r"(?<![A-Z0-9])I?Q(\d)(?![0-9])")
# Precisions named inside other names: ONNX builds ("cpu-int4", "cuda-fp16").
_NAMED = (
    (re.compile(r"(?<![A-Z0-9])INT4(?![0-9])"), ("4-bit", MEDIUM)),
    (re.compile(r"(?<![A-Z0-9])INT8(?![0-9])"), ("8-bit", NEAR_ORIGINAL)),
    (re.compile(r"(?<![A-Z0-9])(FP16|BF16|F16)(?![0-9])"), ("16-bit", ORIGINAL)),
    (re.compile(r"(?<![A-Z0-9])(FP32|F32)(?![0-9])"), ("32-bit", ORIGINAL)),
)
# A quantisation as GGUF file names write it: Q4_K_M, IQ4_XS, Q8_0, F16, BF16, TQ1_0, MXFP4.
_CODE_IN_FILE_NAME = re.compile(r"^(I?Q\d+(_[A-Z0-9]+)*|B?F16|F32|MXFP4|TQ\d_\d)$", re.IGNORECASE)
_MIX_PART = re.compile(r"^(?P<name>\S+) (?P<share><?\d+ %)$")


def is_quant_code(word: str) -> bool:
    """Whether one word of a GGUF file's name (between dots or dashes) is its quantisation."""
    return _CODE_IN_FILE_NAME.match(word) is not None


def quant_facts(name: str) -> tuple[str, str] | None:
    """(bits, quality) for a quantization or tensor type's name, any case; None when unknown.
    The quality is "" for a type that holds no weights (the integer types)."""
    key = name.strip().upper().replace("-", "_")
    if key.startswith("MOSTLY_"):
        key = key.removeprefix("MOSTLY_")
    if key in _TYPES:
        return _TYPES[key]
    spaced = key.replace("_", "-")
    found = _QUANT_IN_NAME.search(spaced)
    if found is not None and int(found[1]) in _BY_BITS:
        return f"{found[1]}-bit", _BY_BITS[int(found[1])]
    for pattern, facts in _NAMED:
        if pattern.search(spaced):
            return facts
    return None


def describe_quant(name: str) -> str:
    """ "4-bit, medium quality" for "Q4_K_M"; "" for a name it does not know."""
    facts = quant_facts(name)
    if facts is None:
        return ""
    bits, quality = facts
    return f"{bits}, {quality}" if quality else f"{bits} whole numbers"


def mix_shares(mix: str) -> list[tuple[str, str]]:
    """``engine.formats.gguf.describe_mix``'s line back as (type, share) pairs, largest first:
    "Q4_1 69 %, F32 <1 %" -> [("Q4_1", "69 %"), ("F32", "<1 %")]. Parts it cannot read are
    left out."""
    pairs = []
    for part in mix.split(","):
        found = _MIX_PART.match(part.strip())
        if found is not None:
            pairs.append((found["name"], found["share"]))
    return pairs


def mix_parts(mix: str | Mapping[str, str]) -> tuple[str, list[tuple[str, str, str]]]:
    """The weights' tensor types as (bits, type, share) parts, largest first, and how they
    lead: "all" (one type), "mostly" (the first holds half or more) or "mixed"; ("", []) when
    there is nothing to say. ``mix`` is describe_mix's line, or type -> share ("69 %")."""
    pairs = list(mix.items()) if isinstance(mix, Mapping) else mix_shares(mix)
    parts = []
    for name, share in pairs:
        facts = quant_facts(name)
        parts.append((facts[0] if facts is not None else name, name, share))
    if not parts:
        return "", []
    percent = parts[0][2].removeprefix("<").removesuffix("%").strip()
    if len(parts) == 1:
        return "all", parts
    return ("mostly" if percent.isdigit() and int(percent) >= 50 else "mixed"), parts


def mix_words(mix: str | Mapping[str, str]) -> str:
    """The weights' tensor types in words, the code and share as details: "Mostly 4-bit (Q4_1,
    69 % of the weights); also 6-bit (Q6_K, 30 %), 32-bit (F32, 1 %)"; "Mixed: ..." when no
    type holds half of them; "" when there is nothing to say."""
    lead, parts = mix_parts(mix)
    if not parts:
        return ""
    (bits, name, share), rest = parts[0], parts[1:]
    head = f"{bits} ({name}, {share} of the weights)"
    others = ", ".join(f"{b} ({n}, {part})" for b, n, part in rest)
    if lead == "all":
        return f"All {head}"
    if lead == "mostly":
        return f"Mostly {head}; also {others}"
    return f"Mixed: {head}, {others}"
