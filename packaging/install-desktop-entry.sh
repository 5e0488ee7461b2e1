#!/usr/bin/env bash
# Adds BAGEL Studio from this unpacked folder to the desktop's menus, with its icon and the
# *.bagel file type, for the current user (~/.local/share); nothing outside the home folder.
#   ./install-desktop-entry.sh            install (run again after moving the folder)
#   ./install-desktop-entry.sh --remove   take it out again
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
id=io.github.bagelstudio.BagelStudio
share="${XDG_DATA_HOME:-$HOME/.local/share}"
targets=(
  "applications/$id.desktop" "metainfo/$id.metainfo.xml" "mime/packages/$id.xml"
  "icons/hicolor/256x256/apps/$id.png" "icons/hicolor/scalable/apps/$id.svg"
)
if [ "${1:-}" = "--remove" ]; then
  for t in "${targets[@]}"; do rm -f "$share/$t"; done
  echo "removed BAGEL Studio's menu entry from $share"
else
  for t in "${targets[@]}"; do install -D -m 644 "$here/share/$t" "$share/$t"; done
  # The entry starts this folder's executable, wherever the folder was unpacked.
  sed -i -e "s|^Exec=bagel-studio|Exec=\"$here/bagel-studio\"|" -e "s|^TryExec=.*|TryExec=$here/bagel-studio|" \
    "$share/applications/$id.desktop"
  echo "installed BAGEL Studio's menu entry into $share"
fi
command -v update-mime-database >/dev/null && update-mime-database "$share/mime" || true
command -v update-desktop-database >/dev/null && update-desktop-database "$share/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$share/icons/hicolor" || true
