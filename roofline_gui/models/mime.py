"""Drag-and-drop payloads: one versioned MIME type per kind, carrying ids as JSON bytes.

Never live objects: a payload says where the ids come from (``preset`` or ``session``) and
which ids. ``text/plain`` carries the names as a fallback for other applications.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QMimeData

MIME_KERNELS = "application/x-roofline-kernel-ids"
MIME_CHIPS = "application/x-roofline-chip-ids"
PAYLOAD_VERSION = 1


def encode(mime_type: str, source: str, ids: list[str], names: list[str]) -> QMimeData:
    data = QMimeData()
    payload = {"version": PAYLOAD_VERSION, "source": source, "ids": list(ids)}
    data.setData(mime_type, json.dumps(payload).encode("utf-8"))
    data.setText("\n".join(names))
    return data


def decode(data: QMimeData | None, mime_type: str) -> tuple[str, list[str]] | None:
    """(source, ids) from a payload of ``mime_type``, or None if absent or malformed."""
    if data is None or not data.hasFormat(mime_type):
        return None
    try:
        payload = json.loads(bytes(data.data(mime_type)).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(payload, dict) or payload.get("version") != PAYLOAD_VERSION:
        return None
    ids, source = payload.get("ids"), payload.get("source")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return None
    if source not in ("preset", "session"):
        return None
    return source, ids
