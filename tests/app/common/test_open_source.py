"""Opening a cited PDF at its page: the command for each Linux viewer that takes a page."""

from __future__ import annotations

from app.common.open_source import viewer_command


def on_path(name: str) -> str | None:
    return f"/usr/bin/{name}"


def test_viewers_that_take_a_page_are_told_it() -> None:
    pdf = "/home/ana/Documents/guide.pdf"
    assert viewer_command(pdf, 4, "org.gnome.Evince.desktop", installed=on_path) == [
        "evince",
        "--page-index=4",
        pdf,
    ]
    assert viewer_command(pdf, 4, "okular.desktop", installed=on_path) == [
        "okular",
        "-p",
        "4",
        pdf,
    ]
    assert viewer_command(pdf, 4, "org.pwmt.zathura-pdf-mupdf.desktop", installed=on_path) == [
        "zathura",
        "-P",
        "4",
        pdf,
    ]
    assert viewer_command(pdf, 2, "firefox.desktop", installed=on_path) == [
        "firefox",
        "file:///home/ana/Documents/guide.pdf#page=2",
    ]


def test_otherwise_the_desktop_opens_the_file() -> None:
    pdf = "/home/ana/Documents/guide.pdf"
    assert viewer_command(pdf, None, "org.gnome.Evince.desktop", installed=on_path) is None
    assert viewer_command(pdf, 3, None, installed=on_path) is None
    assert viewer_command(pdf, 3, "libreoffice-draw.desktop", installed=on_path) is None
    assert (
        viewer_command("/notes/plan.md", 3, "org.gnome.Evince.desktop", installed=on_path) is None
    )
    assert viewer_command(pdf, 3, "org.gnome.Evince.desktop", installed=lambda _n: None) is None
