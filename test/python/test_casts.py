"""f16 <-> bf16 casts (one width, two formats) compile and round like
torch's .to(): exactly through f32, then to nearest even (issue 12)."""

import numpy as np
import pytest

import tcc
from tcc.testing.simt import run_gpu_stage

CAST = """
func.func @cast(%x: tensor<256xf16>) -> tensor<256xbf16> {
  %0 = tcc.cast %x : tensor<256xf16> to tensor<256xbf16>
  return %0 : tensor<256xbf16>
}
"""


def bf16_bits(values):
    # Round to nearest even from float32 (values are finite).
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    return (rounded >> 16).astype(np.uint16)


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_f16_to_bf16_rounds_to_nearest_even(target):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(256) * 100).astype(np.float16)
    k = tcc.compile(CAST, target, cache=False)
    (y,) = run_gpu_stage(k, x)
    assert np.array_equal(y, bf16_bits(x.astype(np.float32)))
