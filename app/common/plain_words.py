"""Plain words for what the engine names in codes: a quantization ("4-bit, medium quality" for
Q4_K_M), the mix of tensor types in a file, and the device a model runs on ("the processor" for
CPU). The code stays beside the words, as a detail, for whoever wants it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.common.i18n import tr
from engine.formats import quant_words

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport


def _quality(quality: str) -> str:
    words = {
        quant_words.ORIGINAL: tr("Quantization", "original quality"),
        quant_words.NEAR_ORIGINAL: tr("Quantization", "near original quality"),
        quant_words.VERY_HIGH: tr("Quantization", "very high quality"),
        quant_words.HIGH: tr("Quantization", "high quality"),
        quant_words.MEDIUM: tr("Quantization", "medium quality"),
        quant_words.LOW: tr("Quantization", "low quality"),
        quant_words.LOWEST: tr("Quantization", "lowest quality"),
        quant_words.TERNARY: tr("Quantization", "for models trained at this precision"),
    }
    return words.get(quality, quality)


def _bits(bits: str) -> str:
    """ "4-bit" in the window's language."""
    if not bits.endswith("-bit"):
        return bits
    return tr("Quantization", "{n}-bit").format(n=bits.removesuffix("-bit"))


def quant_text(code: str) -> str:
    """ "4-bit, medium quality" for "Q4_K_M" (``engine.formats.quant_words``); "" for a code
    without words."""
    facts = quant_words.quant_facts(code) if code else None
    if facts is None:
        return ""
    bits, quality = facts
    if not quality:
        return tr("Quantization", "{bits} whole numbers").format(bits=_bits(bits))
    return tr("Quantization", "{bits}, {quality}").format(
        bits=_bits(bits), quality=_quality(quality)
    )


def quant_label(code: str) -> str:
    """The words first, the code after them: "4-bit, medium quality (Q4_K_M)"; the code alone
    when it has no words."""
    words = quant_text(code)
    if not words:
        return code
    return tr("Quantization", "{words} ({code})").format(words=words, code=code)


def mix_text(mix: str) -> str:
    """A file's tensor types: "Mostly 4-bit (Q4_1, 69 % of the weights); also 8-bit (Q8_0,
    31 %)" (``engine.formats.quant_words.mix_parts``); "" when there is nothing to say."""
    lead, parts = quant_words.mix_parts(mix)
    if not parts:
        return ""
    (bits, code, share), rest = parts[0], parts[1:]
    head = tr("Quantization", "{bits} ({code}, {share} of the weights)").format(
        bits=_bits(bits), code=code, share=share
    )
    others = ", ".join(
        tr("Quantization", "{bits} ({code}, {share})").format(bits=_bits(b), code=c, share=p)
        for b, c, p in rest
    )
    if lead == "all":
        return tr("Quantization", "All {head}").format(head=head)
    if lead == "mostly":
        return tr("Quantization", "Mostly {head}; also {others}").format(head=head, others=others)
    return tr("Quantization", "Mixed: {head}, {others}").format(head=head, others=others)


def device_text(device: str) -> str:
    """Where a model runs, from a memory plan's device: "the processor" for "CPU", "the graphics
    card (NVIDIA RTX 4090)" for "CUDA: NVIDIA RTX 4090"; as it is for a device it does not know."""
    if not device:
        return ""
    head, _sep, rest = device.partition(" + ")
    if rest:  # split with other computers: "CPU (this computer) + 2 workers"
        return tr("Hardware", "this computer and others on the network")
    if head.upper().startswith("CPU"):
        return tr("Hardware", "the processor")
    api, colon, name = head.partition(": ")
    if colon and api.upper() in ("CUDA", "METAL", "VULKAN", "ROCM", "HIP", "SYCL"):
        return tr("Hardware", "the graphics card ({name})").format(name=name)
    if "Neural Engine" in head:
        return tr("Hardware", "the Neural Engine")
    if head.endswith("(ONNX Runtime)"):
        provider = head.removesuffix("(ONNX Runtime)").strip().upper()
        if provider in ("QNN", "VITISAI", "OPENVINO"):
            return tr("Hardware", "the AI accelerator")
        if provider == "COREML":
            return tr("Hardware", "the Neural Engine")
        return tr("Hardware", "the graphics card")
    return device


def best_device_text(report: HardwareReport) -> str:
    """Where models run best here, in words: "the graphics card (NVIDIA RTX 4090)", else "the
    processor (8 cores)". The instruction sets and backends are ``report.best_device()``."""
    best = report.best_gpu()
    if best is not None:
        return tr("Hardware", "the graphics card ({name})").format(name=best[0].name)
    cores = report.cpu.physical_cores
    if cores == 1:
        return tr("Hardware", "the processor (1 core)")
    return tr("Hardware", "the processor ({cores} cores)").format(cores=cores)
