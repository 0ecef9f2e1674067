"""The installed chat models a chat can ask for, by the name it asks with, and the names people
read: labels from the Models page, and the other names a model went by (chats written before
kept the engine's name of their model: its file's stem, name or path)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ModelNames:
    labels: dict[str, str] = field(default_factory=dict)  # name asked for -> label
    aliases: dict[str, str] = field(default_factory=dict)  # another name -> name asked for

    def known(self, name: str | None) -> str | None:
        """The name an installed model is asked for, from any of its names; None when it is
        not installed."""
        if name is None:
            return None
        model = self.aliases.get(name, name)
        return model if model in self.labels else None

    def display_name(self, *names: str | None) -> str | None:
        """The name people know an installed model by, from any of the engine's names for it
        (its id, its file's name or path); None when none is known."""
        for name in names:
            model = self.known(name)
            if model is not None:
                return self.labels[model]
        return None

    def label(self, model: str | None) -> str:
        """A model's name as people read it ("" when nothing is known of it)."""
        if model is None:
            return ""
        return self.labels.get(model, model)

    def choices(self) -> list[tuple[str, str]]:
        """The installed chat models a reply can be written again with: (name, label), by
        label."""
        return sorted(self.labels.items(), key=lambda item: item[1].lower())
