"""`python -m nastui` is the `nastui` command."""

from __future__ import annotations

import sys

from nastui.entry import main

sys.exit(main())
