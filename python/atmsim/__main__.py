"""``python -m atmsim``: the ``atmsim`` command."""

import sys

from .cli import main

sys.exit(main())
