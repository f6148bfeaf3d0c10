module @jit_collatz_steps attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xi32>) -> (tensor<8xi32> {jax.result_info = "result[0]"}, tensor<8xi32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %1:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %0) : tensor<8xi32>, tensor<8xi32>
    cond {
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %3 = stablehlo.compare NE, %iterArg, %2, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
      %c_2 = stablehlo.constant dense<false> : tensor<i1>
      %4 = stablehlo.reduce(%3 init: %c_2) applies stablehlo.or across dimensions = [0] : (tensor<8xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %3 = stablehlo.compare NE, %iterArg, %2, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
      %c_2 = stablehlo.constant dense<2> : tensor<i32>
      %4 = func.call @remainder(%iterArg, %c_2) : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
      %c_3 = stablehlo.constant dense<0> : tensor<i32>
      %5 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %6 = stablehlo.compare EQ, %4, %5, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
      %c_4 = stablehlo.constant dense<2> : tensor<i32>
      %7 = func.call @floor_divide(%iterArg, %c_4) : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
      %c_5 = stablehlo.constant dense<3> : tensor<i32>
      %8 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %9 = stablehlo.multiply %8, %iterArg : tensor<8xi32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %10 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %11 = stablehlo.add %9, %10 : tensor<8xi32>
      %12 = func.call @_where_0(%6, %7, %11) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
      %13 = func.call @_where_0(%3, %12, %iterArg) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
      %14 = stablehlo.convert %3 : (tensor<8xi1>) -> tensor<8xi32>
      %15 = stablehlo.add %iterArg_0, %14 : tensor<8xi32>
      stablehlo.return %13, %15 : tensor<8xi32>, tensor<8xi32>
    }
    return %1#0, %1#1 : tensor<8xi32>, tensor<8xi32>
  }
  func.func private @remainder(%arg0: tensor<8xi32>, %arg1: tensor<i32>) -> tensor<8xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<8xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<8xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %12 = stablehlo.and %11, %6 : tensor<8xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %14 = stablehlo.add %4, %13 : tensor<8xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<8xi1>, tensor<8xi32>
    return %15 : tensor<8xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @floor_divide(%arg0: tensor<8xi32>, %arg1: tensor<i32>) -> tensor<8xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %2 = stablehlo.divide %arg0, %1 : tensor<8xi32>
    %3 = stablehlo.sign %arg0 : tensor<8xi32>
    %4 = stablehlo.sign %0 : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %6 = stablehlo.compare NE, %3, %5, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %7 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %8 = stablehlo.remainder %arg0, %7 : tensor<8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %10 = stablehlo.compare NE, %8, %9, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %11 = stablehlo.and %6, %10 : tensor<8xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %13 = stablehlo.subtract %2, %12 : tensor<8xi32>
    %14 = call @_where_0(%11, %13, %2) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    return %14 : tensor<8xi32>
  }
  func.func private @_where_0(%arg0: tensor<8xi1>, %arg1: tensor<8xi32>, %arg2: tensor<8xi32>) -> tensor<8xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8xi1>, tensor<8xi32>
    return %0 : tensor<8xi32>
  }
}
