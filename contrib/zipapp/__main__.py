"""nastui.pyz: nastui and its pure-Python dependencies in one file (`make dist`).

Run it with the system's python3 (3.11 or newer), no venv and nothing installed:
`python3 nastui.pyz --demo`, or `chmod +x nastui.pyz && ./nastui.pyz status`. Everything runs
from the archive itself; nothing is unpacked or written.
"""

import sys

if sys.version_info < (3, 11):
    sys.exit(
        "nastui needs Python 3.11 or newer; this is %d.%d (%s)"
        % (sys.version_info[0], sys.version_info[1], sys.executable)
    )

from nastui.entry import main  # noqa: E402

sys.exit(main())
