"""The host's idle work: when it may run and its pauses (``background.py``), and the measuring
that runs then (``idle_tuning.py``: the ways to run the chat model, replies at once, the speed
probe)."""
