"""Predicted speed: what a model costs per token (``facts``), what this machine delivers
(``probe``, ``profile``), the runtimes' measured rates (``calibrate``, ``observe``, ``store``) and
the figures they give together (``predict``)."""

# What the window uses, from the modules that hold it.
from engine.speed.installed import ModelSpeed, model_speed
from engine.speed.predict import Prediction
from engine.speed.store import DEFAULT_COMFORTABLE_TPS, SpeedStore

__all__ = ["DEFAULT_COMFORTABLE_TPS", "ModelSpeed", "Prediction", "SpeedStore", "model_speed"]
