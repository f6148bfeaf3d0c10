module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = "stablehlo.case"(%arg0) ({
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %1 = stablehlo.multiply %arg1, %cst : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }, {
      %cst = stablehlo.constant dense<1.000000e+01> : tensor<f32>
      %1 = stablehlo.multiply %arg1, %cst : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }, {
      %cst = stablehlo.constant dense<1.000000e+02> : tensor<f32>
      %1 = stablehlo.multiply %arg1, %cst : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
}
