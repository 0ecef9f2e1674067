"""Predicted speed: what a model costs per token (``facts``), what this machine delivers
(``probe``, ``profile``), the runtimes' measured rates (``calibrate``, ``observe``, ``store``) and
the figures they give together (``predict``)."""
