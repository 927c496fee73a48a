from privaudit.interfaces.cli import main
import sys

if __name__ == "__main__":   # worker processes started by spawn re-import this module
    sys.exit(main())
