#!/usr/bin/env bash
# Build "dist/Roofline Explorer.app" on macOS from a fresh checkout and check it:
#     bash packaging/build_macos.sh
# The app bundle's Info.plist declares .roofline documents (CFBundleDocumentTypes) and the app
# handles QFileOpenEvent, so double-clicking a session in Finder opens it. The bundle is not
# signed or notarised: for distribution, run codesign and notarytool on it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv build/venv
build/venv/bin/pip install -q --upgrade pip
build/venv/bin/pip install -q . "pyinstaller>=6.0"
build/venv/bin/pyinstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/roofline-explorer.spec
QT_QPA_PLATFORM=offscreen "dist/Roofline Explorer.app/Contents/MacOS/roofline-explorer" --self-test
du -sh "dist/Roofline Explorer.app"
