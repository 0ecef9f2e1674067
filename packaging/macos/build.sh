#!/usr/bin/env bash
# make bundle (macOS, Apple silicon): Cove.app (PyInstaller's BUNDLE around the one-folder build:
# Metal llama.cpp, ONNX Runtime with Core ML, coremltools, the starter model) and a .dmg.
# Signing and notarisation need an Apple Developer ID: packaging/README.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
python=${PYTHON:-.venv/bin/python}
[[ $(uname -m) == arm64 ]] || { echo "build on Apple silicon (arm64)" >&2; exit 1; }
# llama.cpp with Metal is the default build of llama-cpp-python on Apple silicon.
"$python" -m pip install --quiet "pyinstaller>=6.10"
"$python" packaging/icons.py macos
iconutil -c icns packaging/macos/Cove.iconset -o packaging/macos/Cove.icns
rm -rf build/pyinstaller dist/cove dist/Cove.app
"$python" -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller \
  packaging/cove.spec
if [[ -n ${COVE_SIGN_IDENTITY:-} ]]; then
  codesign --force --deep --options runtime --timestamp \
    --entitlements packaging/macos/entitlements.plist \
    --sign "$COVE_SIGN_IDENTITY" dist/Cove.app
fi
hdiutil create -volname Cove -srcfolder dist/Cove.app -ov -format UDZO dist/Cove-macos-arm64.dmg
if [[ -n ${COVE_NOTARY_PROFILE:-} ]]; then
  xcrun notarytool submit dist/Cove-macos-arm64.dmg --keychain-profile "$COVE_NOTARY_PROFILE" --wait
  xcrun stapler staple dist/Cove-macos-arm64.dmg
fi
echo "dist/Cove.app, dist/Cove-macos-arm64.dmg"
