# What the window uses, from the modules that hold it.
from engine.advice.recommend import Option, Recommendation, fit_by_size, predict_by_size, recommend

__all__ = ["Option", "Recommendation", "fit_by_size", "predict_by_size", "recommend"]
