"""mlir-tblgen's Python op builders for both dialects build the same IR as
the textual form (tcc.dialects.tcc / tcc.dialects.tile)."""

from mlir import ir
from mlir.dialects import arith, func

from tcc.dialects import tcc as tcc_ops
from tcc.dialects import tile

BLOCKED = ("#tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], "
           "order = [0]}>")

TILE_TEXT = f"""
#b = {BLOCKED}
tile.func @scale(%x: memref<512xf32>, %y: memref<512xf32>) attributes {{grid_rank = 1 : i32}} {{
  %pid = tile.program_id 0 : i32
  %r = tile.arange {{end = 512 : i32, start = 0 : i32}} : tensor<512xi32, #b>
  %s = tile.splat %pid : i32 -> tensor<512xi32, #b>
  %o = arith.addi %s, %r : tensor<512xi32, #b>
  tile.return
}}
"""


def test_tile_builders_match_parsed_ir(ctx):
    parsed = ir.Module.parse(TILE_TEXT)
    layout = ir.Attribute.parse(BLOCKED)
    i32 = ir.IntegerType.get_signless(32)
    tile_i32 = ir.RankedTensorType.get([512], i32, layout)
    memref = ir.MemRefType.get([512], ir.F32Type.get())
    built = ir.Module.create()
    with ir.InsertionPoint(built.body):
        kernel = tile.FuncOp(
            "scale", ir.TypeAttr.get(ir.FunctionType.get([memref, memref], [])),
            ir.IntegerAttr.get(i32, 1))
        entry = kernel.body.blocks.append(memref, memref)
        with ir.InsertionPoint(entry):
            pid = tile.program_id(ir.IntegerAttr.get(i32, 0))
            rng = tile.arange(tile_i32, ir.IntegerAttr.get(i32, 0), ir.IntegerAttr.get(i32, 512))
            splat = tile.splat(tile_i32, pid)
            arith.addi(splat, rng)
            tile.ReturnOp()
    assert built.operation.verify()
    # Same text once both are printed by the same context (SSA names are
    # assigned at print time).
    assert str(built) == str(parsed)


def test_tcc_builders_match_parsed_ir(ctx):
    parsed = ir.Module.parse(
        """
        func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
          %0 = tcc.exp %x : tensor<4x8xf32>
          %1 = tcc.add %0, %x : tensor<4x8xf32>
          return %1 : tensor<4x8xf32>
        }
        """
    )
    t = ir.RankedTensorType.get([4, 8], ir.F32Type.get())
    built = ir.Module.create()
    with ir.InsertionPoint(built.body):
        fn = func.FuncOp("f", ([t], [t]))
        with ir.InsertionPoint(fn.add_entry_block()):
            x = fn.arguments[0]
            e = tcc_ops.exp(x)
            s = tcc_ops.add(t, e, x)
            func.ReturnOp([s])
    assert built.operation.verify()
    assert str(built) == str(parsed)
