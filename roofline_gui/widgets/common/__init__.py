"""Building blocks every part of the window uses: the application object, background jobs,
dialogs, unit-aware fields, and the one-widget preview."""
