#!/usr/bin/env bash
# Build the Linux one-folder bundle from a fresh checkout and check it:
#     bash packaging/build_linux.sh
# Result: dist/roofline-explorer/roofline-explorer (run packaging/linux/install.sh to add it to
# the desktop menu and associate .roofline files with it).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv build/venv
build/venv/bin/pip install -q --upgrade pip
build/venv/bin/pip install -q . "pyinstaller>=6.0"
build/venv/bin/pyinstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/roofline-explorer.spec
QT_QPA_PLATFORM=offscreen dist/roofline-explorer/roofline-explorer --self-test
du -sh dist/roofline-explorer
