"""Roofline Explorer launcher: ``python app.py [SESSION] [--export-csv OUT] ...``."""

import sys

from roofline_gui.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
