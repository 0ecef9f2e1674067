#!/usr/bin/env bash
# make bundle (Linux): a one-folder bundle of Cove (Python, the Qt modules it uses, llama.cpp,
# ONNX Runtime and onnxruntime-genai, the assets and the starter model) and an archive with an
# installer that adds it to the desktop's menu. Run from the repository root after `make setup`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
python=${PYTHON:-.venv/bin/python}
# shellcheck source=packaging/linux/system_libraries.sh
source packaging/linux/system_libraries.sh
"$python" -m pip install --quiet "pyinstaller>=6.10"

# The libraries Qt's display plugins (X11 and Wayland) need must be on this machine for the
# bundle to carry them: where the loader cannot find one, install its package.
qt=$("$python" -c 'import pathlib, PySide6; print(pathlib.Path(PySide6.__file__).parent / "Qt")')
lacking=$(for plugin in "$qt"/plugins/platforms/libq{xcb,wayland}.so "$qt"/plugins/xcbglintegrations/*.so \
  "$qt"/plugins/wayland-*/*.so; do ldd "$plugin"; done | awk '/=> not found/ { print $1 }' | sort -u)
if [[ -n $lacking ]]; then
  # shellcheck disable=SC2086 # one library a word
  debian=$("$python" -m app.shell.platform_check --packages debian $lacking | tr '\n' ' ')
  # shellcheck disable=SC2086
  fedora=$("$python" -m app.shell.platform_check --packages fedora $lacking | tr '\n' ' ')
  if command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
    echo "build: installing what Qt's display plugins need here: $debian"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $debian ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends $debian; }
  else
    echo "build: Qt's display plugins need libraries this machine lacks:" $lacking >&2
    echo "build: install them (Debian/Ubuntu: sudo apt install $debian; Fedora: sudo dnf install" \
      "$fedora) and build again: the bundle carries them for desktops without them" >&2
    exit 1
  fi
fi

# llama.cpp for the processors a bundle meets, not for this one: a native build uses what this CPU
# has (AVX-512 here, say) and stops with an illegal instruction on most desktops. The bundle's is
# built for x86-64-v3 (AVX2, FMA, F16C); the developer's own build is put back afterwards.
if [[ $(uname -m) == x86_64 ]]; then
  trap 'bash packaging/llama_cpp_wheel.sh "$python"' EXIT
  bash packaging/llama_cpp_wheel.sh "$python" --isa "${COVE_BUNDLE_ISA:-avx2}"
fi

rm -rf build/pyinstaller dist/cove
"$python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/cove.spec
bundle=dist/cove
internal=$bundle/_internal
# Not used at run time: Qt's translations of its own dialogs into languages the window does not
# speak (it keeps qtbase for the languages in assets/i18n), type stubs and tests that came with
# packages.
find "$internal/PySide6/Qt/translations" -type f \
  ! \( -name 'qtbase_de.qm' -o -name 'qtbase_fr.qm' \) -delete 2>/dev/null || true
rm -rf "$internal/PySide6/typesystems" "$internal/PySide6/include" "$internal/PySide6/glue"
find "$internal" -depth -type d \( -name tests -o -name __pycache__ \) -exec rm -rf {} +
find "$internal" -name '*.pyi' -delete
# PyInstaller links libraries kept in subfolders into the top folder as it collects; the links
# to the Qt libraries the spec left out point nowhere.
find "$internal" -xtype l -delete
cp packaging/linux/install.sh packaging/linux/uninstall.sh "$bundle/"
cp assets/icons/cove.svg "$bundle/cove.svg"
cp assets/cove.desktop.in "$bundle/cove.desktop.in"
# What the bundle still takes from the system must be on the allowlist: every library a file
# in it names as a dependency is inside it, or there.
from_system=$(needed_from_system "$bundle")
echo "from the system: $(tr '\n' ' ' <<<"$from_system")"
unlisted=$(not_on_allowlist <<<"$from_system")
if [[ -n $unlisted ]]; then
  echo "build: the bundle needs libraries it does not carry and which are not on" \
    "packaging/linux/system-libraries.txt:" $unlisted >&2
  exit 1
fi
archive=dist/Cove-linux-$(uname -m).tar.gz
tar -czf "$archive" -C dist cove
echo "bundle:  $bundle ($(du -sh "$bundle" | cut -f1))"
echo "archive: $archive ($(du -sh "$archive" | cut -f1))"
