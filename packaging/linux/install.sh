#!/usr/bin/env bash
# Installs this Cove bundle for the current user: the folder under ~/.local/opt/cove, `cove` on
# the PATH (~/.local/bin), and Cove in the desktop's application menu with its icon. Nothing
# needs root; your conversations, models and settings stay where they are (~/.local/share/Cove),
# so installing a newer bundle over an older one keeps them. Remove with ./uninstall.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${XDG_DATA_HOME:-$HOME/.local/share}
target=$HOME/.local/opt/cove
mkdir -p "$HOME/.local/opt" "$HOME/.local/bin" "$prefix/applications" \
  "$prefix/icons/hicolor/scalable/apps"
if [[ "$here" != "$target" ]]; then
  rm -rf "$target.new"
  cp -a "$here" "$target.new"
  rm -rf "$target"
  mv "$target.new" "$target"
fi
ln -sf "$target/cove" "$HOME/.local/bin/cove"
cp "$target/cove.svg" "$prefix/icons/hicolor/scalable/apps/cove.svg"
sed -e "s|@EXEC@|$target/cove|" -e "s|@ICON@|cove|" -e "s|@TERMINAL@|false|" \
  "$target/cove.desktop.in" > "$prefix/applications/cove.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database "$prefix/applications" || true
echo "Cove is installed: open it from your applications menu, or run: cove"
