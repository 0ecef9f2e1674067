"""``cove search QUERY``: the catalog's matches with the build recommended for this machine, then
the hub's GGUF and onnxruntime-genai repositories with each file's quant, size and fit.

The catalog answers offline (sizes from the cached listings, else estimated); a hub that cannot be
reached is one line in the output, not a failure, unless nothing at all was found.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from engine.errors import EngineError
from engine.units import format_bytes

if TYPE_CHECKING:
    from engine.advice.recommend import Recommendation
    from engine.hardware.report import HardwareReport
    from engine.hub.api import Hub, HubConfig
    from engine.hub.search import HubHit

FIT_WORDS = {"fits": "fits", "tight": "tight", "too_big": "too big"}


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    catalog: list[Recommendation]
    hub: list[HubHit]
    hub_error: EngineError | None
    report: HardwareReport

    def to_dict(self) -> dict[str, Any]:
        from engine.advice.recommend import fit_by_size, predict_by_size
        from engine.hub.search import gguf_quant, onnx_folders

        def item(path: str, quant: str | None, size: int) -> dict[str, Any]:
            fit, where = fit_by_size(size, self.report)
            predicted = predict_by_size(size, quant, self.report) if quant else None
            return {
                "file": path,
                "quant": quant,
                "size_bytes": size,
                "fit": fit,
                "fit_device": where,
                "fit_basis": "size",
                "predicted_decode_tps": round(predicted.decode_tps, 1) if predicted else None,
                "predicted_prompt_tps": round(predicted.prompt_tps, 1) if predicted else None,
                "speed_basis": f"by size; {predicted.basis}" if predicted else None,
            }

        def files(hit: HubHit) -> list[dict[str, Any]]:
            if hit.format == "gguf":
                return [item(f.path, gguf_quant(f), f.size) for f in hit.files]
            return [item(d or ".", None, n) for d, n in onnx_folders(hit.files).items()]

        return {
            "query": self.query,
            "catalog": [
                {
                    "id": r.model.id,
                    "name": r.model.name,
                    "kind": r.model.kind,
                    "params_b": r.model.params_b,
                    "context_length": r.model.context_length,
                    "license": r.model.license,
                    "gated": r.model.gated,  # the publisher's own repository
                    "gated_builds": [v.key for v in r.model.variants if v.gated],
                    "vision": r.model.vision,  # some build reads images (a projector comes)
                    "description": r.model.description,
                    **r.to_dict(),
                }
                for r in self.catalog
            ],
            "hub": [
                {
                    "repo": h.repo,
                    "format": h.format,
                    "downloads": h.downloads,
                    "likes": h.likes,
                    "gated": h.gated,
                    "files": files(h),
                    "problem": h.problem,
                }
                for h in self.hub
            ],
            "hub_error": str(self.hub_error) if self.hub_error else None,
            "hub_error_code": self.hub_error.code if self.hub_error else None,
        }


def run_search(
    query: str,
    *,
    config: HubConfig,
    report: HardwareReport,
    hub: Hub | None = None,
    online: bool = True,
) -> SearchResult:
    """Catalog matches (listings refreshed from the hub when ``online``) and the hub's hits."""
    from engine.advice.recommend import recommend
    from engine.hub.api import Hub
    from engine.hub.meta import ListingCache, fetch_listings
    from engine.hub.search import search_hub
    from engine.library.catalog import load_catalog
    from engine.speed.store import SpeedStore

    matches = load_catalog().search(query)
    if report.speed is None:
        from engine.speed.machine import with_speed

        report = with_speed(report)
    own = hub is None and online
    hub = hub if hub is not None else (Hub(config) if online else None)
    try:
        repos = [v.repo for m in matches for v in m.variants]
        listings, problems = fetch_listings(hub, repos, ListingCache(), refresh=online)
        goal = SpeedStore().comfortable_tps()  # read once for every match
        catalog = [recommend(m, report, listings, comfortable_tps=goal) for m in matches]
        # Models that run well here first, the catalog's order otherwise.
        catalog.sort(key=lambda r: not r.runs_well)
        hits: list[HubHit] = []
        error: EngineError | None = None
        offline = next((p for p in problems if p.code == "network_unavailable"), None)
        if offline is not None:
            from engine.errors import NetworkUnavailable

            error = NetworkUnavailable(offline.message)
        elif online:
            try:
                hits = search_hub(config, query, hub=hub)
            except EngineError as exc:
                error = exc
    finally:
        if own and hub is not None:
            hub.close()
    return SearchResult(query, catalog, hits, error, report)


def search_command(query: str, as_json: bool, out: TextIO = sys.stdout) -> int:
    from engine.hardware import probe_hardware
    from engine.hub.api import HubConfig

    result = run_search(query, config=HubConfig.resolve(), report=probe_hardware())
    found = bool(result.catalog or result.hub)
    if as_json:
        print(json.dumps(result.to_dict(), indent=2), file=out)
        if not found and result.hub_error is not None:
            print(f"cove: error: {result.hub_error}", file=sys.stderr)
        return 0 if found or result.hub_error is None else 1
    _print(result, out)
    if not found and result.hub_error is not None:
        raise result.hub_error
    return 0


def _print(result: SearchResult, out: TextIO) -> None:
    data = result.to_dict()
    if data["catalog"]:
        print("Catalog ('cove pull ID' downloads the build recommended here)", file=out)
    for item in data["catalog"]:
        gated = ", some builds need a token" if item["gated_builds"] else ""
        vision = ", vision: reads images" if item["vision"] else ""
        facts = f"{item['params_b']:g}B, {item['license']}{vision}{gated}"
        print(f"  {item['id']:<34} {item['name']} ({facts})", file=out)
        print(f"      {item['description']}", file=out)
        print(f"      {item['reason']}", file=out)
        builds = []
        for o in item["options"]:
            size = format_bytes(o["size_bytes"]) + ("" if o["size_exact"] else "~")
            mark = "fits" if o["fits"] else ("not for this computer" if o["why_not"] else "too big")
            tps = o["predicted_decode_tps"]
            speed = f" ~{tps:g} tok/s" if tps and not o["why_not"] else ""
            builds.append(f"{o['label']} {size} {mark}{speed}")
        print("      builds: " + ", ".join(builds), file=out)
    if data["hub"]:
        head = "Hugging Face ('cove pull owner/repo/FILE'; 'cove plan' on one reads its header)"
        print(head, file=out)
    for hit in data["hub"]:
        gated = ", gated: needs a token" if hit["gated"] else ""
        counts = f"{hit['format']}, {hit['downloads']:,} downloads{gated}"
        print(f"  {hit['repo']}  ({counts})", file=out)
        if hit["problem"]:
            print(f"      {hit['problem']}", file=out)
        for f in hit["files"]:
            label = f["quant"] or f"ONNX {f['file']}"
            fit = FIT_WORDS[f["fit"]]
            where = f" on the {f['fit_device']}" if f["fit"] == "fits" else ""
            tps = f["predicted_decode_tps"]
            speed = f", about {tps:g} tokens/s" if tps and f["fit"] != "too_big" else ""
            size = format_bytes(f["size_bytes"])
            print(f"      {label:<10} {size:>10}  {fit}{where}{speed}", file=out)
    if result.hub_error is not None:
        print(f"Hugging Face: {result.hub_error}", file=out)
    if not data["catalog"] and not data["hub"] and result.hub_error is None:
        print(f"Nothing found for {result.query!r}.", file=out)
