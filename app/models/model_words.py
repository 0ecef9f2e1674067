"""An installed model in words: where it lives, its format, its speed's tooltip, the Downloads
tab's title, and the details line under the list (escaped: a share reads "< 1 %", a name may
hold "<" or "&")."""

from __future__ import annotations

from html import escape as esc
from typing import TYPE_CHECKING

from app.common.i18n import tr
from app.common.plain_words import mix_text, quant_text
from app.common.theme import Colors
from app.common.verdicts import Verdict
from engine.library import ModelEntry
from engine.paths import shown
from engine.units import format_bytes

if TYPE_CHECKING:
    from engine.speed import ModelSpeed


def speed_tip(speed: ModelSpeed) -> str:
    prompt = tr("Models", "Reads prompts at about {tps} tokens/s.").format(
        tps=f"{speed.prompt_tps:.0f}"
    )
    if speed.measured:
        return tr("Models", "Measured on this computer, in its latest run. {prompt}").format(
            prompt=prompt
        )
    basis = speed.prediction.basis if speed.prediction is not None else tr("Models", "predicted")
    return f"{basis[:1].upper()}{basis[1:]}. {prompt}"


def where(entry: ModelEntry) -> str:
    """Where a model lives, as the user knows it: the starter ships inside Cove."""
    if entry.source == "starter":
        return tr("Models", "Built into Cove ({file})").format(file=entry.path.name)
    return shown(entry.path)


def loaded_mark() -> str:
    """After the name of the model loaded in the chat."""
    return "  " + tr("Models", "● loaded")


def format_text(entry: ModelEntry) -> str:
    """The Format column: the quantization in words ("4-bit, medium quality"), else the file's
    format; "· Vision" for a model that reads images."""
    text = quant_text(entry.quantization) or entry.kind
    return text + (" · " + tr("Models", "Vision") if entry.vision else "")


def format_tip(entry: ModelEntry) -> str:
    """The codes behind the Format column's words: "GGUF, quantization Q4_K_M"."""
    if not entry.quantization:
        return entry.kind
    return tr("Models", "{format}, quantization {code}").format(
        format=entry.kind, code=entry.quantization
    )


def format_label(entry: ModelEntry) -> str:
    """The words, then the codes: "4-bit, medium quality (GGUF Q4_K_M)"."""
    words = quant_text(entry.quantization)
    codes = f"{entry.kind} {entry.quantization}".strip()
    return tr("Models", "{words} ({codes})").format(words=words, codes=codes) if words else codes


def downloads_tab_text(live: int) -> str:
    """The Downloads tab's title, with how many are under way."""
    if live:
        return tr("Models", "Downloads ({count})").format(count=live)
    return tr("Models", "Downloads")


def details_html(
    entry: ModelEntry, verdict: Verdict | None, speed: ModelSpeed | None, colors: Colors
) -> str:
    """The selected model's details: name, format and size, where it is, its mix of tensor
    types, its vision projector, whether it fits and how fast it replies here."""
    lines = [
        tr("Models", "<b>{name}</b> — {kind}, {size}").format(
            name=esc(entry.name),
            kind=esc(format_label(entry)),
            size=format_bytes(entry.size_bytes),
        )
    ]
    lines.append(f"<span style='color:{colors.muted}'>{esc(where(entry))}</span>")
    mix = mix_text(entry.tensor_types)
    if mix:
        lines.append(f"<span style='color:{colors.muted}'>{esc(mix)}</span>")
    if entry.projector is not None:
        vision = tr("Models", "Vision: reads images with {projector}, beside it").format(
            projector=entry.projector.name
        )
        lines.append(f"<span style='color:{colors.muted}'>{esc(vision)}</span>")
    if verdict is not None:
        lines.append(esc(verdict.text))
        if speed is not None:
            lines.append(esc(tr("Models", "Replies at {speed}").format(speed=speed.words)))
        lines += [f"<span style='color:{colors.muted}'>{esc(d)}</span>" for d in verdict.details]
    return "<br>".join(lines)
