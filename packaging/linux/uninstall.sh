#!/usr/bin/env bash
# Removes the Cove bundle installed by install.sh. Your conversations, models and settings in
# ~/.local/share/Cove are kept; delete that folder too to remove them.
set -euo pipefail
prefix=${XDG_DATA_HOME:-$HOME/.local/share}
rm -rf "$HOME/.local/opt/cove"
rm -f "$HOME/.local/bin/cove" "$prefix/applications/cove.desktop" \
  "$prefix/icons/hicolor/scalable/apps/cove.svg"
echo "Cove is removed (your data in $prefix/Cove is kept)."
