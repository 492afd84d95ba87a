"""The app's data: chip and kernel presets, example sessions, icons.

Installed as ``roofline_gui.resources`` (see pyproject.toml) and read through
``roofline_gui.io.files.resources_dir``."""
