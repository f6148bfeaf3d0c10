module @jit_init_in_padding attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<1.000000e+02> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1>, padding = dense<1> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 3>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %3 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+02> : tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %cst_0) <{base_dilations = array<i64: 2>, padding = dense<0> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 2>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %3 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<5xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = "stablehlo.reduce_window"(%arg0, %cst_1) <{base_dilations = array<i64: 1>, padding = dense<1> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %3 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<5xf32>, tensor<f32>) -> tensor<3xf32>
    return %0, %1, %2 : tensor<5xf32>, tensor<8xf32>, tensor<3xf32>
  }
}
