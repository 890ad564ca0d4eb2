"""Bad inputs the launcher and the artifact cache refuse with a clear error
(issue 12's list): byte order, null and misaligned device pointers,
read-only and aliasing outputs; unusable cache directories and crafted
artifact headers."""

import hashlib
import json
import struct

import numpy as np
import pytest

from tcc.compiler.cache import KernelCache
from tcc.runtime import ArgSpec, ArgumentError, KernelArtifact, LaunchSpec
from tcc.runtime.artifact import MAGIC, ArtifactError
from tcc.runtime.launcher import bind_shapes


def vadd():
    return KernelArtifact(
        target="sm_90", vendor="nvidia", kernel_name="vadd", asm="// ptx", binary=None,
        launch=LaunchSpec(block=(128, 1, 1), grid=(1, 1, 1)),
        args=(ArgSpec("a", "pointer", "f32", (64,)), ArgSpec("b", "pointer", "f32", (64,)),
              ArgSpec("c", "pointer", "f32", (64,), "output")),
    )


class DeviceArray:
    """A device array by its __cuda_array_interface__ (no GPU needed)."""

    def __init__(self, ptr, shape=(64,), typestr="<f4"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "data": (ptr, False), "strides": None, "version": 3}


def test_big_endian_arrays_are_refused():
    a = np.zeros(64, dtype=">f4")
    b, c = np.zeros(64, np.float32), np.zeros(64, np.float32)
    with pytest.raises(ArgumentError, match=r"argument 'a': expected dtype f32, got big-endian "
                                            r"f32 \(>f4\)"):
        bind_shapes(vadd(), [a, b, c])


def test_null_and_misaligned_device_pointers_are_refused():
    good = DeviceArray(0x10000)
    with pytest.raises(ArgumentError, match="argument 'a' is a null device pointer"):
        bind_shapes(vadd(), [DeviceArray(0), good, DeviceArray(0x20000)])
    with pytest.raises(ArgumentError, match=r"argument 'b' at 0x10004 is not 16-byte aligned"):
        bind_shapes(vadd(), [good, DeviceArray(0x10004), DeviceArray(0x20000)])
    bind_shapes(vadd(), [good, DeviceArray(0x10100), DeviceArray(0x20000)])  # fine


def test_read_only_and_aliasing_outputs_are_refused():
    a, b = np.zeros(64, np.float32), np.zeros(64, np.float32)
    frozen = np.zeros(64, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ArgumentError, match="output 'c' is a read-only array"):
        bind_shapes(vadd(), [a, b, frozen])
    with pytest.raises(ArgumentError, match="output 'c' overlaps argument 'a'"):
        bind_shapes(vadd(), [a, b, a])
    # Two inputs may be one array.
    bind_shapes(vadd(), [a, a, np.zeros(64, np.float32)])


def _artifact_bytes(header: bytes) -> bytes:
    payload = struct.pack("<I", len(header)) + header
    return MAGIC + hashlib.sha256(payload).digest() + payload


def test_crafted_headers_are_artifact_errors():
    nested = b"[" * 100000 + b"]" * 100000
    with pytest.raises(ArtifactError, match="corrupt artifact header"):
        KernelArtifact.from_bytes(_artifact_bytes(nested))
    wrong = json.dumps({"asm_size": 0, "binary_size": None, "launch": [1, 2]}).encode()
    with pytest.raises(ArtifactError, match="corrupt artifact header"):
        KernelArtifact.from_bytes(_artifact_bytes(wrong))
    good = vadd().to_bytes()
    with pytest.raises(ArtifactError, match="hash mismatch"):
        KernelArtifact.from_bytes(good[:-1] + bytes([good[-1] ^ 1]))


def test_unusable_cache_directories_are_misses_not_errors(tmp_path):
    art = vadd()
    # An entry path that is a directory: a miss, and the write is skipped
    # with one warning.
    cache = KernelCache(tmp_path / "c")
    cache.path_for("k" * 64).mkdir(parents=True)
    with pytest.warns(RuntimeWarning, match="cannot write under"):
        assert cache.get_or_build("k" * 64, lambda: art) is art
    assert cache.get_or_build("k" * 64, lambda: art) is art  # from memory
    # The cache directory is a regular file.
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = KernelCache(blocker)
    with pytest.warns(RuntimeWarning, match="artifacts stay in memory only"):
        assert cache.get_or_build("j" * 64, lambda: art) is art
