"""Start the desktop window."""

from __future__ import annotations

import argparse
import sys


def run_gui(options: argparse.Namespace) -> int:
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication(sys.argv[:1])
    label = QLabel("Cove")
    label.resize(1100, 720)
    label.show()
    return int(app.exec())
