#!/usr/bin/env bash
# Add Roofline Explorer to the desktop for this user: menu entry, icons, the .roofline file type
# and its association with the app (all under ~/.local/share; no root needed).
#     bash packaging/linux/install.sh [EXECUTABLE]
# EXECUTABLE defaults to the bundle (dist/roofline-explorer/roofline-explorer), else the
# roofline-explorer on PATH, else the checkout's .venv/bin/roofline-explorer.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
exe="${1:-}"
if [ -z "$exe" ]; then
    for candidate in "$root/dist/roofline-explorer/roofline-explorer" "$(command -v roofline-explorer || true)" \
                     "$root/.venv/bin/roofline-explorer"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then exe="$candidate"; break; fi
    done
fi
[ -n "$exe" ] && [ -x "$exe" ] || { echo "install.sh: no roofline-explorer executable found; pass its path" >&2; exit 2; }
exe="$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")"
data="${XDG_DATA_HOME:-$HOME/.local/share}"

sed "s|@EXEC@|$exe|g" "$here/roofline-explorer.desktop" > "$here/.desktop.tmp"
install -Dm644 "$here/.desktop.tmp" "$data/applications/roofline-explorer.desktop"
rm -f "$here/.desktop.tmp"
for size in 16 24 32 48 64 128 256 512; do
    png="$root/resources/icons/roofline-explorer-$size.png"
    install -Dm644 "$png" "$data/icons/hicolor/${size}x${size}/apps/roofline-explorer.png"
    install -Dm644 "$png" "$data/icons/hicolor/${size}x${size}/mimetypes/application-x-roofline-session.png"
done
install -Dm644 "$root/resources/icons/roofline-explorer.svg" "$data/icons/hicolor/scalable/apps/roofline-explorer.svg"
install -Dm644 "$here/roofline-explorer-mime.xml" "$data/mime/packages/roofline-explorer.xml"

command -v update-mime-database >/dev/null && update-mime-database "$data/mime"
command -v update-desktop-database >/dev/null && update-desktop-database "$data/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
if command -v xdg-mime >/dev/null; then
    xdg-mime default roofline-explorer.desktop application/x-roofline-session
fi
echo "installed: $data/applications/roofline-explorer.desktop -> $exe"
