// tcc-opt itself: both dialects are registered next to upstream's, our passes
// show in --help, and bad IR exits non-zero with a located diagnostic.
// RUN: tcc-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// DIALECTS-DAG: tcc
// DIALECTS-DAG: tile
// DIALECTS-DAG: linalg
// DIALECTS-DAG: nvvm
// DIALECTS-DAG: rocdl

// RUN: not tcc-opt %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tool.mlir:[[@LINE+1]]:{{[0-9]+}}: error: custom op 'tcc.no_such_op' is unknown
%0 = tcc.no_such_op : tensor<4xf32>
