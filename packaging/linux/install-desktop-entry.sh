#!/usr/bin/env bash
# Adds Cove to the desktop's application menu for the current user, pointing at this checkout's
# environment (run `make setup` first). Remove with: rm ~/.local/share/applications/cove.desktop
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
exe="$root/.venv/bin/cove"
[[ -x $exe ]] || { echo "install-desktop-entry: run 'make setup' first ($exe is missing)" >&2; exit 1; }
apps=${XDG_DATA_HOME:-$HOME/.local/share}/applications
mkdir -p "$apps"
sed -e "s|@EXEC@|$exe|" -e "s|@ICON@|$root/assets/icons/cove.svg|" -e "s|@TERMINAL@|true|" \
    "$root/assets/cove.desktop.in" > "$apps/cove.desktop"
echo "installed $apps/cove.desktop"
