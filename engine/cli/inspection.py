"""``cove probe`` (what this machine has) and ``cove inspect`` (what a model file is, unloaded)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cli.output import print_json

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport


def probe_command(as_json: bool, again: bool = False) -> int:
    from engine.hardware import probe_hardware
    from engine.speed.machine import with_speed

    report = with_speed(probe_hardware(), again=again)
    if as_json:
        print_json(report.to_dict())
    else:
        print("\n".join(report.summary_lines()))
        print("\n".join(speed_lines(report)))
    return 0


def speed_lines(report: HardwareReport) -> list[str]:
    """The speed probe's figures and each runtime's calibration, in words."""
    speed = report.speed
    if speed is None:
        return ["Speed: not probed"]
    lines = []
    for d in speed.devices:
        lines.append(
            f"Speed of {d.name}: {d.bandwidth_words()}, {d.flops / 1e9:,.0f} GFLOPS"
            + (" (measured)" if d.basis == "measured" else "")
        )
    for key, c in speed.calibrations.items():
        lines.append(f"Calibrated {key.replace(':', ' on ')}: {c.source}")
    if speed.provisional:
        lines.append("Measured while the machine was busy: measured again when it is quiet")
    return lines


def inspect_command(model: str, as_json: bool) -> int:
    from engine.formats.gguf import read_gguf
    from engine.formats.onnx import is_onnx_chat_folder, read_onnx_model
    from engine.library.names import resolve_model
    from engine.templates import choose_template

    path = resolve_model(model)
    from engine.formats.coreml import is_coreml_model, read_coreml_model

    if is_coreml_model(path):
        coreml = read_coreml_model(path)
        summary = dict(coreml.summary())
        template = choose_template(
            embedded=coreml.chat_template, architecture=coreml.architecture, model_name=coreml.name
        )
    elif is_onnx_chat_folder(path):
        onnx = read_onnx_model(path)
        summary = dict(onnx.summary())
        template = choose_template(
            embedded=onnx.chat_template, architecture=onnx.architecture, model_name=onnx.name
        )
    else:
        info = read_gguf(path)
        summary = dict(info.summary())
        tokens = info.metadata.get("tokenizer.ggml.tokens")
        template = choose_template(
            embedded=info.chat_template,
            architecture=info.architecture,
            tokens=[str(t) for t in tokens] if isinstance(tokens, list) else None,
            model_name=info.name,
        )
    summary["path"] = str(path)
    summary["chat_template"] = {
        "name": template.name,
        "origin": template.origin,
        "reason": template.reason,
    }
    if as_json:
        print_json(summary)
        return 0
    for key, value in summary.items():
        if key == "chat_template":
            print(f"{'chat template':<18} {template.name} ({template.reason})")
        else:
            print(f"{key.replace('_', ' '):<18} {_human(key, value)}")
    return 0


def _human(key: str, value: object) -> str:
    from engine.units import format_bytes

    if isinstance(value, int) and key in ("file_size", "weights_bytes"):
        return format_bytes(value)
    if isinstance(value, dict) and key == "tensor_types":
        from engine.formats.gguf import describe_mix

        return describe_mix(value)
    if isinstance(value, int) and key == "parameters":
        return f"{value / 1e6:.1f} M" if value < 1e9 else f"{value / 1e9:.2f} B"
    return str(value)
