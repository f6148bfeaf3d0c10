module @broadcast {
  func.func public @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<f32>, %d: tensor<2x1xf32>, %i: tensor<2x3xi32>, %j: tensor<3xi32>, %p: tensor<3xi1>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>) {
    %0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = chlo.broadcast_subtract %c, %a : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = chlo.broadcast_multiply %d, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %3 = chlo.broadcast_divide %a, %d : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %4 = chlo.broadcast_maximum %b, %a {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = chlo.broadcast_atan2 %a, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %6 = chlo.broadcast_and %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    %7 = chlo.broadcast_shift_right_arithmetic %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    %8 = chlo.broadcast_remainder %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    %9 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %10 = chlo.broadcast_compare %a, %c {comparison_direction = #chlo<comparison_direction GE>, compare_type = #chlo<comparison_type TOTALORDER>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
    %11 = chlo.broadcast_select %p, %a, %b : (tensor<3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %12 = chlo.broadcast_power %a, %d : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %13 = "chlo.constant_like"(%a) {value = 2.5 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %14 = "chlo.constant_like"(%i) {value = -7 : i32} : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %15 = chlo.broadcast_minimum %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>
  }
}
