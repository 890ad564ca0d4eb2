"""`python -m tcc ...`: the `tcc` command line (tcc.cli), for environments
where the console script is not on PATH."""

import sys

from tcc.cli import main

sys.exit(main())
