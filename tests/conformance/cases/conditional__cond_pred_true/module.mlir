module @jit_two_way attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1>, %arg1: tensor<5xf32>, %arg2: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<i1>) -> tensor<i32>
    %1:2 = "stablehlo.case"(%0) ({
      %2 = stablehlo.add %arg1, %arg2 : tensor<5xf32>
      %3 = stablehlo.subtract %arg2, %arg1 : tensor<5xf32>
      stablehlo.return %2, %3 : tensor<5xf32>, tensor<5xf32>
    }, {
      %2 = stablehlo.multiply %arg1, %arg2 : tensor<5xf32>
      %3 = stablehlo.subtract %arg1, %arg2 : tensor<5xf32>
      stablehlo.return %2, %3 : tensor<5xf32>, tensor<5xf32>
    }) : (tensor<i32>) -> (tensor<5xf32>, tensor<5xf32>)
    return %1#0, %1#1 : tensor<5xf32>, tensor<5xf32>
  }
}
