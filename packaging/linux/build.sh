#!/usr/bin/env bash
# make bundle (Linux): a one-folder bundle of Cove (Python, the Qt modules it uses, llama.cpp,
# ONNX Runtime and onnxruntime-genai, the assets and the starter model) and an archive with an
# installer that adds it to the desktop's menu. Run from the repository root after `make setup`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
python=${PYTHON:-.venv/bin/python}
"$python" -m pip install --quiet "pyinstaller>=6.10"
rm -rf build/pyinstaller dist/cove
"$python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/cove.spec
bundle=dist/cove
internal=$bundle/_internal
# Not used at run time: Qt's translations of its own dialogs (Cove's are English), type stubs
# and tests that came with packages.
rm -rf "$internal/PySide6/Qt/translations" "$internal/PySide6/typesystems" \
  "$internal/PySide6/include" "$internal/PySide6/glue"
find "$internal" -depth -type d \( -name tests -o -name __pycache__ \) -exec rm -rf {} +
find "$internal" -name '*.pyi' -delete
cp packaging/linux/install.sh packaging/linux/uninstall.sh "$bundle/"
cp assets/icons/cove.svg "$bundle/cove.svg"
cp assets/cove.desktop.in "$bundle/cove.desktop.in"
archive=dist/Cove-linux-$(uname -m).tar.gz
tar -czf "$archive" -C dist cove
echo "bundle:  $bundle ($(du -sh "$bundle" | cut -f1))"
echo "archive: $archive ($(du -sh "$archive" | cut -f1))"
