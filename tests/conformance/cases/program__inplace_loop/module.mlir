module @jit__inplace_loop attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9x4xf32>, %arg1: tensor<i32>) -> (tensor<5x4xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1:6 = stablehlo.while(%iterArg = %arg1, %iterArg_2 = %arg0, %iterArg_3 = %c_1, %iterArg_4 = %c, %iterArg_5 = %0, %iterArg_6 = %cst_0) : tensor<i32>, tensor<9x4xf32>, tensor<i32>, tensor<i32>, tensor<5x4xf32>, tensor<f32>
    cond {
      %c_7 = stablehlo.constant dense<5> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_3, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2:3 = func.call @closed_call(%iterArg, %iterArg_2, %iterArg_4, %iterArg_5, %iterArg_6) : (tensor<i32>, tensor<9x4xf32>, tensor<i32>, tensor<5x4xf32>, tensor<f32>) -> (tensor<i32>, tensor<5x4xf32>, tensor<f32>)
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg_3, %c_7 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %3, %2#0, %2#1, %2#2 : tensor<i32>, tensor<9x4xf32>, tensor<i32>, tensor<i32>, tensor<5x4xf32>, tensor<f32>
    }
    return %1#4, %1#5 : tensor<5x4xf32>, tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<9x4xf32>, %arg2: tensor<i32>, %arg3: tensor<5x4xf32>, %arg4: tensor<f32>) -> (tensor<i32>, tensor<5x4xf32>, tensor<f32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg2, %c : tensor<i32>
    %1 = stablehlo.convert %arg2 : tensor<i32>
    %2 = stablehlo.add %1, %arg0 : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.compare LT, %2, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_1 = stablehlo.constant dense<9> : tensor<i32>
    %4 = stablehlo.add %2, %c_1 : tensor<i32>
    %5 = stablehlo.select %3, %4, %2 : tensor<i1>, tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.compare LT, %c_2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %c_5 = stablehlo.constant dense<4> : tensor<i32>
    %7 = stablehlo.add %c_4, %c_5 : tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.select %6, %7, %c_6 : tensor<i1>, tensor<i32>
    %9 = stablehlo.dynamic_slice %arg1, %5, %8, sizes = [3, 4] : (tensor<9x4xf32>, tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<4xf32>
    %c_7 = stablehlo.constant dense<1> : tensor<i32>
    %11 = stablehlo.add %arg2, %c_7 : tensor<i32>
    %12 = stablehlo.convert %11 : (tensor<i32>) -> tensor<f32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %14 = stablehlo.multiply %10, %13 : tensor<4xf32>
    %15 = stablehlo.convert %arg2 : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %17 = stablehlo.compare LT, %15, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_9 = stablehlo.constant dense<5> : tensor<i32>
    %18 = stablehlo.add %15, %c_9 : tensor<i32>
    %19 = stablehlo.select %17, %18, %15 : tensor<i1>, tensor<i32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %20 = stablehlo.compare LT, %c_10, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_12 = stablehlo.constant dense<0> : tensor<i32>
    %c_13 = stablehlo.constant dense<4> : tensor<i32>
    %21 = stablehlo.add %c_12, %c_13 : tensor<i32>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %22 = stablehlo.select %20, %21, %c_14 : tensor<i1>, tensor<i32>
    %23 = stablehlo.dynamic_update_slice %arg3, %16, %19, %22 : (tensor<5x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<5x4xf32>
    %cst_15 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %24 = stablehlo.reduce(%9 init: %cst_15) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<f32>
    %25 = stablehlo.add %arg4, %24 : tensor<f32>
    return %0, %23, %25 : tensor<i32>, tensor<5x4xf32>, tensor<f32>
  }
}
