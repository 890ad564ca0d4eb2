"""Op builders for the ``tile`` dialect."""

import tcc as _tcc  # noqa: F401  (registers the dialect)
from tcc.dialects._tile_ops_gen import *  # noqa: F403
