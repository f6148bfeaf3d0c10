module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<4xi32>) -> (tensor<4xi32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0, %iterArg_1 = %arg1) : tensor<i32>, tensor<i32>, tensor<4xi32>
    cond {
      %1 = stablehlo.compare LT, %iterArg, %iterArg_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      %c_3 = stablehlo.constant dense<2> : tensor<i32>
      %2 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %3 = stablehlo.multiply %iterArg_1, %2 : tensor<4xi32>
      %4 = stablehlo.convert %iterArg : tensor<i32>
      %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %6 = stablehlo.add %3, %5 : tensor<4xi32>
      stablehlo.return %1, %iterArg_0, %6 : tensor<i32>, tensor<i32>, tensor<4xi32>
    }
    return %0#2 : tensor<4xi32>
  }
}
