"""Before the window opens: can Qt's platform plugin load on this desktop?

Since Qt 6.5 the X11 plugin needs libraries (xcb-cursor, xcb-icccm, xcb-keysyms ...) that many
desktops do not install, and when one is missing Qt aborts with a message that names one of
them at best. This asks the dynamic loader (``ldd``) which of the plugin's libraries it cannot
find, and says in one message what to install on Debian/Ubuntu and on Fedora. Without ``ldd``
nothing is checked and Qt has its say, as before.

``python -m app.shell.platform_check`` runs the check; ``--packages debian LIBRARY...`` prints the
packages that provide libraries (the Linux bundle's build installs them with it).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# Which package provides each library Qt's X11 and Wayland plugins load, on Debian/Ubuntu and
# on Fedora. Distributions rename packages rarely; a library missing here is still named in the
# message, only without its package.
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libXau.so.6": ("libxau6", "libXau"),
    "libXdmcp.so.6": ("libxdmcp6", "libXdmcp"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libwayland-client.so.0": ("libwayland-client0", "libwayland-client"),
    "libwayland-cursor.so.0": ("libwayland-cursor0", "libwayland-cursor"),
    "libwayland-egl.so.1": ("libwayland-egl1", "libwayland-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libGLdispatch.so.0": ("libglvnd0", "libglvnd"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
}
SYSTEMS = ("debian", "fedora")

# The platform plugins that need libraries of the desktop's; the others Cove may be asked for
# (offscreen, minimal: no display at all) need nothing beyond Qt, and any other is Qt's to judge.
PLUGIN_FILES = {"xcb": "libqxcb.so", "wayland": "libqwayland.so"}
NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)

Ldd = Callable[[Path], str | None]


@dataclass(frozen=True)
class Lack:
    """A platform plugin and the libraries it needs that the loader cannot find."""

    platform: str
    libraries: tuple[str, ...]


def platform_candidates(env: Mapping[str, str]) -> list[str]:
    """The platform plugins Qt will try, in its order: QT_QPA_PLATFORM if set (a list separated
    by ';', each name possibly followed by ':options'), else Wayland then X11 in a Wayland
    session, else X11."""
    requested = env.get("QT_QPA_PLATFORM", "").strip()
    if requested:
        names = (part.split(":", 1)[0].strip() for part in requested.split(";"))
        return [name for name in names if name]
    if env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE") == "wayland":
        return ["wayland", "xcb"]
    return ["xcb"]


def plugins_folder(env: Mapping[str, str]) -> Path | None:
    """Where Qt looks for platform plugins: QT_QPA_PLATFORM_PLUGIN_PATH if set, else PySide6's
    own folder (inside the bundle when Cove runs frozen). Found without importing Qt."""
    override = env.get("QT_QPA_PLATFORM_PLUGIN_PATH")
    if override:
        return Path(override)
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "PySide6" / "Qt" / "plugins" / "platforms"
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins" / "platforms"


def run_ldd(library: Path) -> str | None:
    """``ldd``'s report on ``library``, or None where there is no ``ldd`` to ask."""
    ldd = shutil.which("ldd") or ("/usr/bin/ldd" if Path("/usr/bin/ldd").is_file() else None)
    if ldd is None:
        return None
    env = dict(os.environ)
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        # The bundle's libraries count as found, as they do for the bundle's own process.
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            p for p in (bundle, env.get("LD_LIBRARY_PATH", "")) if p
        )
    try:
        done = subprocess.run(
            [ldd, str(library)], capture_output=True, text=True, env=env, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout


def unresolved(library: Path, ldd: Ldd | None = None) -> list[str] | None:
    """The libraries ``library`` needs, directly or through another, that the loader cannot
    find (in the loader's order, each once); None if that cannot be told here."""
    report = (ldd or run_ldd)(library)
    if report is None:
        return None
    return list(dict.fromkeys(NOT_FOUND.findall(report)))


def check(env: Mapping[str, str], ldd: Ldd | None = None) -> list[Lack]:
    """What keeps Qt from loading a platform plugin here: empty if one of the plugins Qt will
    try can load (or if that cannot be told), else each plugin tried with what it lacks."""
    if not sys.platform.startswith("linux"):
        return []  # Qt's plugins on macOS and Windows need nothing the system may lack
    folder = plugins_folder(env)
    lacks: list[Lack] = []
    for platform in platform_candidates(env):
        name = PLUGIN_FILES.get(platform)
        if name is None or folder is None:
            return []
        plugin = folder / name
        if not plugin.is_file():
            continue  # Qt says which plugins it has
        missing = unresolved(plugin, ldd)
        if not missing:
            return []
        lacks.append(Lack(platform, tuple(missing)))
    return lacks


def packages(libraries: Sequence[str], system: str) -> list[str]:
    """The packages that provide ``libraries`` on ``system`` ("debian" or "fedora"), each once;
    libraries not in the table are left out."""
    column = SYSTEMS.index(system)
    found = (PACKAGES[lib][column] for lib in libraries if lib in PACKAGES)
    return list(dict.fromkeys(found))


def message(lacks: Sequence[Lack]) -> str:
    """One message naming every missing library and what to install."""
    needs = "; ".join(
        f"Qt's {lack.platform} platform plugin needs libraries this system lacks: "
        + ", ".join(lack.libraries)
        for lack in lacks
    )
    libraries = list(dict.fromkeys(lib for lack in lacks for lib in lack.libraries))
    debian, fedora = packages(libraries, "debian"), packages(libraries, "fedora")
    text = f"Cove cannot open its window: {needs}."
    if debian:
        text += (
            f" Install them: sudo apt install {' '.join(debian)} (Debian/Ubuntu)"
            f" or sudo dnf install {' '.join(fedora)} (Fedora)."
        )
    unknown = [lib for lib in libraries if lib not in PACKAGES]
    if unknown:
        text += f" Install the packages that provide {', '.join(unknown)}."
    return text


def problem(env: Mapping[str, str] | None = None, ldd: Ldd | None = None) -> str | None:
    """The message to print instead of opening the window, or None when the window can open."""
    lacks = check(os.environ if env is None else env, ldd)
    return message(lacks) if lacks else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.shell.platform_check",
        description="Check that Qt's platform plugin can load here, or print the packages "
        "that provide libraries.",
    )
    parser.add_argument("--packages", choices=SYSTEMS, help="print the packages for LIBRARY")
    parser.add_argument("library", nargs="*", help="library file names (with --packages)")
    options = parser.parse_args(argv)
    if options.packages:
        unknown = [lib for lib in options.library if lib not in PACKAGES]
        if unknown:
            print(f"no package known for {', '.join(unknown)}", file=sys.stderr)
            return 2
        print("\n".join(packages(options.library, options.packages)))
        return 0
    found = problem()
    print(found or "Qt's platform plugin can load here.", file=sys.stderr if found else sys.stdout)
    return 1 if found else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
