module {
  func.func @scale_1(%arg0: memref<4xi32>, %arg1: i32) -> memref<4xi32> attributes {arg_names = ["A", "s"], itypes = "__", kernel = "scale", otypes = "_"} {
    %alloc = memref.alloc() {name = "B"} : memref<4xi32>
    %c0_i32 = arith.constant 0 : i32
    affine.for %arg2 = 0 to 4 {
      affine.store %c0_i32, %alloc[%arg2] {to = "B"} : memref<4xi32>
    }
    affine.for %arg2 = 0 to 4 {
      %alloc_0 = memref.alloc() {name = "sel"} : memref<i32>
      %0 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi32>
      %c0_i32_1 = arith.constant 0 : i32
      %1 = arith.cmpi sgt, %0, %c0_i32_1 : i32
      scf.if %1 {
        %3 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi32>
        %4 = arith.muli %3, %arg1 : i32
        affine.store %4, %alloc_0[] {to = "sel"} : memref<i32>
      } else {
        %3 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi32>
        affine.store %3, %alloc_0[] {to = "sel"} : memref<i32>
      }
      %2 = affine.load %alloc_0[] {from = "sel"} : memref<i32>
      affine.store %2, %alloc[%arg2] {to = "B"} : memref<4xi32>
    } {loop_name = "i", op_name = "S_i_0"}
    return %alloc : memref<4xi32>
  }
  func.func @scale_2(%arg0: memref<4xi8>, %arg1: i5) -> memref<4xi8> attributes {arg_names = ["A", "s"], itypes = "__", kernel = "scale", otypes = "_"} {
    %alloc = memref.alloc() {name = "B"} : memref<4xi8>
    %c0_i5 = arith.constant 0 : i5
    %0 = arith.extsi %c0_i5 : i5 to i8
    affine.for %arg2 = 0 to 4 {
      affine.store %0, %alloc[%arg2] {to = "B"} : memref<4xi8>
    }
    affine.for %arg2 = 0 to 4 {
      %alloc_0 = memref.alloc() {name = "sel"} : memref<i8>
      %1 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi8>
      %2 = arith.trunci %1 : i8 to i5
      %c0_i5_1 = arith.constant 0 : i5
      %3 = arith.cmpi sgt, %2, %c0_i5_1 : i5
      scf.if %3 {
        %7 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi8>
        %8 = arith.trunci %7 : i8 to i5
        %9 = arith.muli %8, %arg1 : i5
        %10 = arith.extsi %9 : i5 to i8
        affine.store %10, %alloc_0[] {to = "sel"} : memref<i8>
      } else {
        %7 = affine.load %arg0[%arg2] {from = "A"} : memref<4xi8>
        %8 = arith.trunci %7 : i8 to i5
        %9 = arith.extsi %8 : i5 to i8
        affine.store %9, %alloc_0[] {to = "sel"} : memref<i8>
      }
      %4 = affine.load %alloc_0[] {from = "sel"} : memref<i8>
      %5 = arith.trunci %4 : i8 to i5
      %6 = arith.extsi %5 : i5 to i8
      affine.store %6, %alloc[%arg2] {to = "B"} : memref<4xi8>
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
