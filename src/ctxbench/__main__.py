import sys

from ctxbench.cli import main

sys.exit(main())
