"""Asking which model to import and how: a GGUF file or an ONNX folder (chosen by its
``genai_config.json``), copied into the models folder or used where it is."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.common.i18n import tr


def choose_model_file(parent: QWidget) -> Path | None:
    """The model the user picks: a GGUF file, or the folder of the ONNX config picked."""
    path, _filter = QFileDialog.getOpenFileName(
        parent,
        tr("Import", "Import a model"),
        str(Path.home()),
        ";;".join(
            (
                tr("Import", "GGUF models (*.gguf)"),
                tr("Import", "ONNX model config (genai_config.json)"),
            )
        ),
    )
    if not path:
        return None
    chosen = Path(path)
    return chosen.parent if chosen.name == "genai_config.json" else chosen


def ask_import_mode(parent: QWidget, model: Path) -> str | None:
    """ "copy" (into the models folder), "link" (use it where it is) or None (cancelled)."""
    box = QMessageBox(parent)
    box.setWindowTitle(tr("Import", "Import a model"))
    box.setText(tr("Import", "Import {name}?").format(name=model.name))
    box.setInformativeText(
        tr(
            "Import",
            "A copy in Cove's models folder keeps working if the original moves; using it where "
            "it is takes no extra space.",
        )
    )
    copy = box.addButton(tr("Import", "Copy into models folder"), QMessageBox.ButtonRole.AcceptRole)
    link = box.addButton(tr("Import", "Use where it is"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    return "copy" if clicked is copy else "link" if clicked is link else None
