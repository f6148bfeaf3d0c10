module @jit_variadic attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x7xf32>, %arg1: tensor<3x7xi32>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3xi32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<-2147483648> : tensor<i32>
    %0:2 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %c) across dimensions = [1] : (tensor<3x7xf32>, tensor<3x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
     reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<i32>, %arg5: tensor<i32>)  {
      %1 = stablehlo.add %arg2, %arg4 : tensor<f32>
      %2 = stablehlo.maximum %arg3, %arg5 : tensor<i32>
      stablehlo.return %1, %2 : tensor<f32>, tensor<i32>
    }
    return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
  }
}
