"""Each API the host speaks: the routes and wire formats of OpenAI's chat, completions and
Responses APIs, Anthropic's Messages API, Ollama's API and the tokenizer's routes, the tools and
thinking fields they share, and the whole HTTP surface assembled from them (``routes.py``)."""
