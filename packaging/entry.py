"""The bundle's entry point: the same ``cove`` as the installed one (the window by default, the
terminal commands with arguments)."""

import sys

from app.main import main

sys.exit(main())
