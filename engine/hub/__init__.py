# What the window uses, from the modules that hold it.
from engine.hub.api import DEFAULT_ENDPOINT, Hub, HubConfig, HubSettings, RemoteFile, check_repo
from engine.hub.download import Download, DownloadManager, DownloadProgress, DownloadRequest
from engine.hub.gguf_names import projector_for, quant_of, single_ggufs
from engine.hub.meta import Listing, ListingCache, RepoProblem, build_files, fetch_listings
from engine.hub.requests import requests_for, resume_request
from engine.hub.search import HubHit, gguf_quant, onnx_folders, search_hub

__all__ = [
    "DEFAULT_ENDPOINT",
    "Download",
    "DownloadManager",
    "DownloadProgress",
    "DownloadRequest",
    "Hub",
    "HubConfig",
    "HubHit",
    "HubSettings",
    "Listing",
    "ListingCache",
    "RemoteFile",
    "RepoProblem",
    "build_files",
    "check_repo",
    "fetch_listings",
    "gguf_quant",
    "onnx_folders",
    "projector_for",
    "quant_of",
    "requests_for",
    "resume_request",
    "search_hub",
    "single_ggufs",
]
