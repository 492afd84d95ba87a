#!/usr/bin/env bash
# Remove what packaging/linux/install.sh added for this user.
set -euo pipefail
data="${XDG_DATA_HOME:-$HOME/.local/share}"
rm -f "$data/applications/roofline-explorer.desktop" "$data/mime/packages/roofline-explorer.xml" \
      "$data/icons/hicolor/scalable/apps/roofline-explorer.svg"
for size in 16 24 32 48 64 128 256 512; do
    rm -f "$data/icons/hicolor/${size}x${size}/apps/roofline-explorer.png" \
          "$data/icons/hicolor/${size}x${size}/mimetypes/application-x-roofline-session.png"
done
command -v update-mime-database >/dev/null && update-mime-database "$data/mime"
command -v update-desktop-database >/dev/null && update-desktop-database "$data/applications" || true
# Drop the default-application line install.sh added, if any.
list="${XDG_CONFIG_HOME:-$HOME/.config}/mimeapps.list"
[ -f "$list" ] && sed -i '/^application\/x-roofline-session=/d' "$list"
echo "removed Roofline Explorer's desktop entry, icons and file type"
