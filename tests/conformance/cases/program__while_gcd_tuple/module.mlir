module @jit__gcd attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xi32>, %arg1: tensor<10xi32>) -> (tensor<10xi32> {jax.result_info = "result[0]"}, tensor<10xi32> {jax.result_info = "result[1]"}, tensor<10xi32> {jax.result_info = "result[2]"}, tensor<10xf32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %2:4 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1, %iterArg_1 = %0, %iterArg_2 = %1) : tensor<10xi32>, tensor<10xi32>, tensor<10xi32>, tensor<10xf32>
    cond {
      %c_3 = stablehlo.constant dense<0> : tensor<i32>
      %3 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<10xi32>
      %4 = stablehlo.compare NE, %iterArg_0, %3, SIGNED : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi1>
      %c_4 = stablehlo.constant dense<false> : tensor<i1>
      %5 = stablehlo.reduce(%4 init: %c_4) applies stablehlo.or across dimensions = [0] : (tensor<10xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %c_3 = stablehlo.constant dense<0> : tensor<i32>
      %3 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<10xi32>
      %4 = stablehlo.compare NE, %iterArg_0, %3, SIGNED : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi1>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %5 = func.call @_where(%4, %iterArg_0, %c_4) : (tensor<10xi1>, tensor<10xi32>, tensor<i32>) -> tensor<10xi32>
      %6 = func.call @_where_0(%4, %iterArg_0, %iterArg) : (tensor<10xi1>, tensor<10xi32>, tensor<10xi32>) -> tensor<10xi32>
      %7 = func.call @remainder(%iterArg, %5) : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi32>
      %c_5 = stablehlo.constant dense<0> : tensor<i32>
      %8 = func.call @_where(%4, %7, %c_5) : (tensor<10xi1>, tensor<10xi32>, tensor<i32>) -> tensor<10xi32>
      %9 = stablehlo.convert %4 : (tensor<10xi1>) -> tensor<10xi32>
      %10 = stablehlo.add %iterArg_1, %9 : tensor<10xi32>
      %11 = stablehlo.convert %6 : (tensor<10xi32>) -> tensor<10xf32>
      %12 = stablehlo.log %11 : tensor<10xf32>
      %c_6 = stablehlo.constant dense<0> : tensor<i32>
      %13 = func.call @_where_1(%4, %12, %c_6) : (tensor<10xi1>, tensor<10xf32>, tensor<i32>) -> tensor<10xf32>
      %14 = stablehlo.add %iterArg_2, %13 : tensor<10xf32>
      stablehlo.return %6, %8, %10, %14 : tensor<10xi32>, tensor<10xi32>, tensor<10xi32>, tensor<10xf32>
    }
    return %2#0, %2#1, %2#2, %2#3 : tensor<10xi32>, tensor<10xi32>, tensor<10xi32>, tensor<10xf32>
  }
  func.func private @_where(%arg0: tensor<10xi1>, %arg1: tensor<10xi32>, %arg2: tensor<i32>) -> tensor<10xi32> {
    %0 = stablehlo.convert %arg2 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<10xi1>, tensor<10xi32>
    return %2 : tensor<10xi32>
  }
  func.func private @_where_0(%arg0: tensor<10xi1>, %arg1: tensor<10xi32>, %arg2: tensor<10xi32>) -> tensor<10xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<10xi1>, tensor<10xi32>
    return %0 : tensor<10xi32>
  }
  func.func private @remainder(%arg0: tensor<10xi32>, %arg1: tensor<10xi32>) -> tensor<10xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %1 = stablehlo.compare EQ, %arg1, %0, SIGNED : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %3 = call @_where_0(%1, %2, %arg1) : (tensor<10xi1>, tensor<10xi32>, tensor<10xi32>) -> tensor<10xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<10xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<10xi1>, tensor<10xi1>) -> tensor<10xi1>
    %12 = stablehlo.and %11, %6 : tensor<10xi1>
    %13 = stablehlo.add %4, %3 : tensor<10xi32>
    %14 = stablehlo.select %12, %13, %4 : tensor<10xi1>, tensor<10xi32>
    return %14 : tensor<10xi32>
  }
  func.func private @_where_1(%arg0: tensor<10xi1>, %arg1: tensor<10xf32>, %arg2: tensor<i32>) -> tensor<10xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<10xi1>, tensor<10xf32>
    return %2 : tensor<10xf32>
  }
}
