"""The engine host: a process that holds the models and serves the OpenAI-compatible API.

Native runtimes can take a whole process down with them; running them here keeps the window (and
the conversation) alive when they do. See docs/ENGINE_API.md.
"""

# The child's environment variable that carries the per-launch token, and the line the host prints
# on stdout once it serves (followed by JSON: port, pid). Kept here, apart from the server, so that
# starting a host never imports the runtimes the server uses.
TOKEN_ENV = "COVE_HOST_TOKEN"
READY_PREFIX = "COVE-HOST-READY "
