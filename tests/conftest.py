"""Test-suite configuration.

``tests/extended`` needs the optional robot models (``pip install "mbdlib[robots]"``, ~400 MB): it is not
collected by ``make test`` and runs with ``make test-extended``, which installs them. There it fails,
instead of skipping, if they are missing.
"""

import os

collect_ignore = [] if os.environ.get("MBDLIB_EXTENDED") == "1" else ["extended"]
