"""Op builders for the ``tcc`` tensor dialect."""

import tcc as _tcc  # noqa: F401  (registers the dialect)
from tcc.dialects._tcc_ops_gen import *  # noqa: F403
