module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xi1>, %arg1: tensor<0xi1>, %arg2: tensor<i32>) -> (tensor<3xi1> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg2, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.add %arg2, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg2 : tensor<i1>, tensor<i32>
    %3 = stablehlo.dynamic_update_slice %arg0, %arg1, %2 : (tensor<3xi1>, tensor<0xi1>, tensor<i32>) -> tensor<3xi1>
    return %3 : tensor<3xi1>
  }
}
