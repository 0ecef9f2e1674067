"""The window with another computer's engine: Settings › Engine (this computer or another, by
address and key, its certificate pinned on first use), what is saved of that choice, and how the
window shows a remote engine (status bar, Models, chat settings)."""
