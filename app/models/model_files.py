"""Model files by hand: imports (registered where they are, or copied into the models folder),
deletes (asked first, never the loaded model nor one another program has open) and unfinished
downloads (resumed or discarded). The Models page hands in how to
speak to the person and to list the models again."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtWidgets import QWidget

from app.common.i18n import tr
from app.common.workers import WorkerPool
from app.models.download_controller import DownloadController
from app.models.importing import ask_import_mode, choose_model_file
from app.models.model_words import where
from engine.hub import resume_request
from engine.library import (
    ModelEntry,
    PartialDownload,
    Removed,
    catalog_or_none,
    projector_of,
    remove_model,
    remove_partial,
)
from engine.paths import models_dir, shown
from engine.units import format_bytes


class ModelFiles:
    def __init__(
        self,
        parent: QWidget,
        pool: WorkerPool,
        downloads: DownloadController,
        say: Callable[[str], None],
        refresh: Callable[[], None],
        imported_changed: Callable[[list[str]], None],
        show_downloads: Callable[[], None],
    ) -> None:
        self.parent, self.pool, self.downloads = parent, pool, downloads
        self.say, self.refresh = say, refresh
        self.imported_changed, self.show_downloads = imported_changed, show_downloads
        self.imported: list[str] = []
        # asks how to import a model: "copy", "link" (use it where it is) or None (cancelled)
        self.choose_import_mode: Callable[[Path], str | None] = self._ask_import_mode

    # -- importing -----------------------------------------------------------------------------

    def import_paths(self, paths: Sequence[str]) -> None:
        """Register model files or folders where they are (nothing is copied); a vision
        projector beside a GGUF is used where it is too, and said."""
        added = [p for p in paths if p and p not in self.imported]
        if not added:
            return
        self.imported += added
        self.imported_changed(list(self.imported))
        projectors = [(Path(p), projector_of(Path(p))) for p in added if p.endswith(".gguf")]
        said = [
            tr("Models", "{model} reads images with {projector}, beside it.").format(
                model=m.name, projector=v.name
            )
            for m, v in projectors
            if v
        ]
        if said:
            self.say(" ".join(said))
        self.refresh()

    def import_dialog(self) -> None:
        model = choose_model_file(self.parent)
        if model is not None:
            mode = self.choose_import_mode(model)
            if mode == "copy":
                self.import_copy(model)
            elif mode == "link":
                self.import_paths([str(model)])

    def import_copy(self, source: Path) -> None:
        """Copy a model (and a vision projector beside it) into the models folder, in the
        background; the list follows."""
        from engine.library import Imported, import_model

        self.say(tr("Models", "Copying {name} into the models folder…").format(name=source.name))

        def done(imported: Imported) -> None:
            where = shown(imported.path.parent)
            if imported.projector is not None:
                self.say(
                    tr(
                        "Models",
                        "Imported {name} with its vision projector {projector}: in {where}.",
                    ).format(name=source.name, projector=imported.projector.name, where=where)
                )
            else:
                self.say(
                    tr("Models", "Imported {name}: a copy is in {where}.").format(
                        name=source.name, where=where
                    )
                )
            self.refresh()

        self.pool.submit(lambda: import_model(source), done, lambda exc: self.say(str(exc)))

    def _ask_import_mode(self, model: Path) -> str | None:
        return ask_import_mode(self.parent, model)

    # -- deleting ------------------------------------------------------------------------------

    def delete(
        self,
        entry: ModelEntry,
        loaded_id: str | None,
        confirm: Callable[[str, str], bool],
        in_use: Callable[[Path], list[int]],
        deleted: Callable[[Removed], None],
        failed: Callable[[str], None],
    ) -> None:
        """Delete ``entry`` from the models folder once the person says yes; ``deleted`` hears
        what went, ``failed`` the model's id when it stays (the reason is said)."""
        if entry.id == loaded_id:
            self.say(
                tr(
                    "Models",
                    "{name} is the model loaded in the chat, so it cannot be deleted. Load "
                    "another model first, then delete this one.",
                ).format(name=entry.name)
            )
            failed(entry.id)
            return
        question = tr(
            "Models",
            "Delete {name} ({size}) from {where}? Downloading it again fetches the whole file.",
        ).format(name=entry.name, size=format_bytes(entry.size_bytes), where=where(entry))
        if entry.projector is not None:
            question += " " + tr(
                "Models", "Its vision projector goes with it unless another model uses it."
            )
        if not confirm(tr("Models", "Delete model"), question):
            return

        def done(removed: Removed) -> None:
            what = (
                tr("Models", "{name} and its vision projector").format(name=entry.name)
                if removed.projector
                else entry.name
            )
            self.say(
                tr("Models", "Deleted {what}: {size} freed.").format(
                    what=what, size=format_bytes(removed.freed_bytes)
                )
            )
            deleted(removed)
            self.refresh()

        def refused(exc: BaseException) -> None:
            self.say(
                tr("Models", "{name} was not deleted. {error}").format(name=entry.name, error=exc)
            )
            failed(entry.id)

        self.pool.submit(lambda: remove_model(entry.id, models_dir(), in_use=in_use), done, refused)

    # -- partial downloads ---------------------------------------------------------------------

    def discard_partial(self, partial: PartialDownload) -> None:
        name = f"{partial.repo}/{partial.file}"
        self.pool.submit(
            lambda: remove_partial(partial.target),
            lambda freed: self._discarded(name, freed),
            lambda exc: self.say(
                tr("Models", "Could not discard {name}: {error}").format(name=name, error=exc)
            ),
        )

    def _discarded(self, name: str, freed: int) -> None:
        self.say(
            tr("Models", "Discarded the partial download of {name}: {size} freed.").format(
                name=name, size=format_bytes(freed)
            )
        )
        self.refresh()

    def resume_partial(self, partial: PartialDownload) -> None:
        try:
            self.downloads.add(resume_request(partial.repo, partial.file, catalog_or_none()))
        except ValueError as exc:
            self.say(str(exc))
            return
        self.show_downloads()
        self.refresh()
