"""``python -m privaudit``: the ``privaudit`` command line (:mod:`privaudit.interfaces.cli`)."""

import sys

from privaudit.interfaces.cli import main

if __name__ == "__main__":  # worker processes started by spawn re-import this module
    sys.exit(main())
