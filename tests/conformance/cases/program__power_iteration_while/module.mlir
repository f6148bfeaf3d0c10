module @jit__power_iteration attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x6xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<2.44948983> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.divide %0, %1 : tensor<6xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3:5 = stablehlo.while(%iterArg = %arg0, %iterArg_3 = %2, %iterArg_4 = %cst_1, %iterArg_5 = %cst_2, %iterArg_6 = %c) : tensor<6x6xf32>, tensor<6xf32>, tensor<f32>, tensor<f32>, tensor<i32>
    cond {
      %4 = stablehlo.subtract %iterArg_4, %iterArg_5 : tensor<f32>
      %5 = stablehlo.abs %4 : tensor<f32>
      %6 = stablehlo.abs %iterArg_4 : tensor<f32>
      %cst_7 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %7 = stablehlo.multiply %cst_7, %6 : tensor<f32>
      %8 = stablehlo.compare GT, %5, %7, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c_8 = stablehlo.constant dense<200> : tensor<i32>
      %9 = stablehlo.compare LT, %iterArg_6, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %10 = stablehlo.and %8, %9 : tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %4 = stablehlo.dot_general %iterArg, %iterArg_3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x6xf32>, tensor<6xf32>) -> tensor<6xf32>
      %5 = func.call @norm(%4) : (tensor<6xf32>) -> tensor<f32>
      %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %7 = stablehlo.divide %4, %6 : tensor<6xf32>
      %8 = stablehlo.dot_general %iterArg_3, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6xf32>, tensor<6xf32>) -> tensor<f32>
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %9 = stablehlo.add %iterArg_6, %c_7 : tensor<i32>
      stablehlo.return %iterArg, %7, %8, %iterArg_4, %9 : tensor<6x6xf32>, tensor<6xf32>, tensor<f32>, tensor<f32>, tensor<i32>
    }
    return %3#2 : tensor<f32>
  }
  func.func private @norm(%arg0: tensor<6xf32>) -> tensor<f32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.sqrt %1 : tensor<f32>
    return %2 : tensor<f32>
  }
}
