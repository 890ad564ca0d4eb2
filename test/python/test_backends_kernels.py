"""Hand-written gpu-dialect kernels shared by the backend/cache/runtime tests."""

VADD = r"""
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vadd(%a: memref<4096xf32>, %b: memref<4096xf32>, %c: memref<4096xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %bd = gpu.block_dim x
      %c4 = arith.constant 4 : index
      %i0 = arith.muli %bid, %bd : index
      %i1 = arith.addi %i0, %tid : index
      %i = arith.muli %i1, %c4 : index
      %va = vector.load %a[%i] {alignment = 16} : memref<4096xf32>, vector<4xf32>
      %vb = vector.load %b[%i] {alignment = 16} : memref<4096xf32>, vector<4xf32>
      %vc = arith.addf %va, %vb : vector<4xf32>
      vector.store %vc, %c[%i] {alignment = 16} : memref<4096xf32>, vector<4xf32>
      gpu.return
    }
  }
}
"""

ACT = r"""
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @act(%a: memref<1024xf32>, %c: memref<1024xf32>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %c256 = arith.constant 256 : index
      %i0 = arith.muli %bid, %c256 : index
      %i = arith.addi %i0, %tid : index
      %x = memref.load %a[%i] : memref<1024xf32>
      %t = math.tanh %x : f32
      %e = math.exp %t : f32
      memref.store %e, %c[%i] : memref<1024xf32>
      gpu.return
    }
  }
}
"""

# Dynamic sizes: memref descriptors instead of bare pointers; bounds check on %n.
SCALE_DYN = r"""
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a: memref<?xf32>, %c: memref<?xf32>, %s: f32, %n: i32) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %c64 = arith.constant 64 : index
      %i0 = arith.muli %bid, %c64 : index
      %i = arith.addi %i0, %tid : index
      %n_idx = arith.index_cast %n : i32 to index
      %in = arith.cmpi ult, %i, %n_idx : index
      scf.if %in {
        %x = memref.load %a[%i] : memref<?xf32>
        %y = arith.mulf %x, %s : f32
        memref.store %y, %c[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
"""

# math.erf has no expansion upstream: must be reported, not silently called.
ERF = ACT.replace("math.tanh", "math.erf").replace("@act", "@erf")
