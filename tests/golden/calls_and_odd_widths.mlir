module {
  func.func @scale_1(%arg0: memref<4xi32>, %arg1: i32) -> memref<4xi32> attributes {arg_names = ["A", "s"], itypes = "__", kernel = "scale", otypes = "_"} {
    %alloc = memref.alloc() {name = "B"} : memref<4xi32>
    %c0_i32 = arith.constant 0 : i32
    linalg.fill ins(%c0_i32 : i32) outs(%alloc : memref<4xi32>)
    affine.for %arg2 = 0 to 4 {
      %alloc_0 = memref.alloc() {name = "sel"} : memref<i64>
      %0 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi32>
      %c0_i32_1 = arith.constant 0 : i32
      %1 = arith.cmpi sgt, %0, %c0_i32_1 : i32
      scf.if %1 {
        %4 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi32>
        %5 = arith.extsi %4 : i32 to i64
        %6 = arith.extsi %arg1 : i32 to i64
        %7 = arith.muli %5, %6 : i64
        affine.store %7, %alloc_0[] {to = "sel"} : memref<i64>
      } else {
        %4 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi32>
        %5 = arith.extsi %4 : i32 to i64
        affine.store %5, %alloc_0[] {to = "sel"} : memref<i64>
      }
      %2 = affine.load %alloc_0[] {from = "sel"} : memref<i64>
      %3 = arith.trunci %2 : i64 to i32
      affine.store %3, %alloc[%arg2] {to = "B"} : memref<4xi32>
    } {loop_name = "i", op_name = "S_i_0"}
    return %alloc : memref<4xi32>
  }
  func.func @scale_2(%arg0: memref<4xi8>, %arg1: i5) -> memref<4xi8> attributes {arg_names = ["A", "s"], itypes = "__", kernel = "scale", otypes = "_"} {
    %alloc = memref.alloc() {name = "B"} : memref<4xi8>
    %c0_i5 = arith.constant 0 : i5
    %0 = arith.extsi %c0_i5 : i5 to i8
    linalg.fill ins(%0 : i8) outs(%alloc : memref<4xi8>)
    affine.for %arg2 = 0 to 4 {
      %alloc_0 = memref.alloc() {name = "sel"} : memref<i16>
      %1 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi8>
      %2 = arith.trunci %1 : i8 to i5
      %c0_i5_1 = arith.constant 0 : i5
      %3 = arith.cmpi sgt, %2, %c0_i5_1 : i5
      scf.if %3 {
        %8 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi8>
        %9 = arith.trunci %8 : i8 to i5
        %10 = arith.extsi %9 : i5 to i10
        %11 = arith.extsi %arg1 : i5 to i10
        %12 = arith.muli %10, %11 : i10
        %13 = arith.extsi %12 : i10 to i16
        affine.store %13, %alloc_0[] {to = "sel"} : memref<i16>
      } else {
        %8 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi8>
        %9 = arith.trunci %8 : i8 to i5
        %10 = arith.extsi %9 : i5 to i10
        %11 = arith.extsi %10 : i10 to i16
        affine.store %11, %alloc_0[] {to = "sel"} : memref<i16>
      }
      %4 = affine.load %alloc_0[] {from = "sel"} : memref<i16>
      %5 = arith.trunci %4 : i16 to i10
      %6 = arith.trunci %5 : i10 to i5
      %7 = arith.extsi %6 : i5 to i8
      affine.store %7, %alloc[%arg2] {to = "B"} : memref<4xi8>
    } {loop_name = "i", op_name = "S_i_0"}
    return %alloc : memref<4xi8>
  }
  func.func @calls_and_odd_widths(%arg0: memref<4xi32>, %arg1: memref<4xi8>) -> (memref<4xi32>, memref<4xi8>) attributes {arg_names = ["A", "X"], itypes = "__", kernel = "calls_and_odd_widths", otypes = "__"} {
    %c3_i32 = arith.constant 3 : i32
    %0 = call @scale_1(%arg0, %c3_i32) {name = "B"} : (memref<4xi32>, i32) -> memref<4xi32>
    %c2_i5 = arith.constant 2 : i5
    %1 = call @scale_2(%arg1, %c2_i5) {name = "Y"} : (memref<4xi8>, i5) -> memref<4xi8>
    return %0, %1 : memref<4xi32>, memref<4xi8>
  }
}
