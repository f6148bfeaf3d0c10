module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xi32>, %arg1: tensor<3x2xi32>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> (tensor<4x3xi32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg2, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %1 = stablehlo.add %arg2, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg2 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.compare LT, %arg3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<3> : tensor<i32>
    %4 = stablehlo.add %arg3, %c_2 : tensor<i32>
    %5 = stablehlo.select %3, %4, %arg3 : tensor<i1>, tensor<i32>
    %6 = stablehlo.dynamic_update_slice %arg0, %arg1, %2, %5 : (tensor<4x3xi32>, tensor<3x2xi32>, tensor<i32>, tensor<i32>) -> tensor<4x3xi32>
    return %6 : tensor<4x3xi32>
  }
}
