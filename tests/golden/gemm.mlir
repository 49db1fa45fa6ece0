module {
  func.func @gemm(%arg0: memref<32x32xf32>, %arg1: memref<32x32xf32>) -> memref<32x32xf32> attributes {arg_names = ["A", "B"], itypes = "__", kernel = "gemm", otypes = "_"} {
    %alloc = memref.alloc() {name = "C"} : memref<32x32xf32>
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%alloc : memref<32x32xf32>)
    affine.for %arg2 = 0 to 32 {
      affine.for %arg3 = 0 to 32 {
        affine.for %arg4 = 0 to 32 {
          %0 = affine.load %alloc[%arg2, %arg3] {from = "C"} : memref<32x32xf32>
          %1 = affine.load %arg0[%arg2, %arg4] {from = "A"} : memref<32x32xf32>
          %2 = affine.load %arg1[%arg4, %arg3] {from = "B"} : memref<32x32xf32>
          %3 = arith.mulf %1, %2 : f32
          %4 = arith.addf %0, %3 : f32
          affine.store %4, %alloc[%arg2, %arg3] {to = "C"} : memref<32x32xf32>
        } {loop_name = "k", op_name = "S_k_1", reduction}
      } {loop_name = "j"}
    } {loop_name = "i", op_name = "S_i_j_0"}
    return %alloc : memref<32x32xf32>
  }
}
