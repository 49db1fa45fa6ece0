module attributes {calyx.entrypoint = "twice"} {
  calyx.component @twice(%clk: i1 {clk}, %reset: i1 {reset}, %go: i1 {go}) -> (%out0: i32, %done: i1 {done}) {
    %true = hw.constant true
    %c1_i32 = hw.constant 1 : i32
    %r.in, %r.write_en, %r.clk, %r.reset, %r.out, %r.done = calyx.register @r : i32, i1, i1, i1, i32, i1
    %add.left, %add.right, %add.out = calyx.std_add @add : i32, i32, i32
    calyx.wires {
      calyx.assign %out0 = %r.out : i32
      calyx.group @one {
        calyx.assign %r.in = %c1_i32 : i32
        calyx.assign %r.write_en = %true : i1
        calyx.group_done %r.done : i1
      }
      calyx.group @inc {
        calyx.assign %add.left = %r.out : i32
        calyx.assign %add.right = %c1_i32 : i32
        calyx.assign %r.in = %add.out : i32
        calyx.assign %r.write_en = %true : i1
        calyx.group_done %r.done : i1
      }
    }
    calyx.control {
      calyx.seq {
        calyx.enable @one
        calyx.enable @inc
        calyx.enable @inc
        calyx.enable @inc
      }
    }
  } {toplevel}
}
