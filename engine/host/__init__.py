"""The engine host: a process that holds the models and serves the OpenAI-compatible API.

Native runtimes can take a whole process down with them; running them here keeps the window (and
the conversation) alive when they do. See docs/ENGINE_API.md.
"""
