"""Make mlir-tblgen's Python op bindings importable outside mlir/dialects.

The generator emits ``from ._ods_common import ...`` (a sibling module of the
upstream dialects); tcc's generated files live in ``tcc/dialects``.
"""

import sys
from pathlib import Path

src, dst = Path(sys.argv[1]), Path(sys.argv[2])
text = src.read_text().replace("from ._ods_common import", "from mlir.dialects._ods_common import")
dst.parent.mkdir(parents=True, exist_ok=True)
dst.write_text(text)
