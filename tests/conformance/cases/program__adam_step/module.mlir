module @jit__adam attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<8x4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<8x4xf32>, %arg5: tensor<4xf32>, %arg6: tensor<8x4xf32>, %arg7: tensor<4xf32>, %arg8: tensor<i32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<8x4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}, tensor<8x4xf32> {jax.result_info = "result[3]"}, tensor<4xf32> {jax.result_info = "result[4]"}, tensor<8x4xf32> {jax.result_info = "result[5]"}, tensor<4xf32> {jax.result_info = "result[6]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg8, %c : tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<f32>
    %cst = stablehlo.constant dense<0.899999976> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %3 = stablehlo.multiply %2, %arg4 : tensor<8x4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %5 = stablehlo.multiply %4, %arg2 : tensor<8x4xf32>
    %6 = stablehlo.add %3, %5 : tensor<8x4xf32>
    %cst_1 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %8 = stablehlo.multiply %7, %arg6 : tensor<8x4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %10 = stablehlo.multiply %9, %arg2 : tensor<8x4xf32>
    %11 = stablehlo.multiply %10, %arg2 : tensor<8x4xf32>
    %12 = stablehlo.add %8, %11 : tensor<8x4xf32>
    %cst_3 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %13 = stablehlo.power %cst_3, %1 : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %14 = stablehlo.subtract %cst_4, %13 : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %16 = stablehlo.divide %6, %15 : tensor<8x4xf32>
    %cst_5 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %17 = stablehlo.power %cst_5, %1 : tensor<f32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %18 = stablehlo.subtract %cst_6, %17 : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %20 = stablehlo.divide %12, %19 : tensor<8x4xf32>
    %cst_7 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %22 = stablehlo.multiply %21, %16 : tensor<8x4xf32>
    %23 = stablehlo.sqrt %20 : tensor<8x4xf32>
    %cst_8 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %25 = stablehlo.add %23, %24 : tensor<8x4xf32>
    %26 = stablehlo.divide %22, %25 : tensor<8x4xf32>
    %27 = stablehlo.subtract %arg0, %26 : tensor<8x4xf32>
    %cst_9 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %29 = stablehlo.multiply %28, %arg5 : tensor<4xf32>
    %cst_10 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %31 = stablehlo.multiply %30, %arg3 : tensor<4xf32>
    %32 = stablehlo.add %29, %31 : tensor<4xf32>
    %cst_11 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %34 = stablehlo.multiply %33, %arg7 : tensor<4xf32>
    %cst_12 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %36 = stablehlo.multiply %35, %arg3 : tensor<4xf32>
    %37 = stablehlo.multiply %36, %arg3 : tensor<4xf32>
    %38 = stablehlo.add %34, %37 : tensor<4xf32>
    %cst_13 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %39 = stablehlo.power %cst_13, %1 : tensor<f32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %40 = stablehlo.subtract %cst_14, %39 : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %42 = stablehlo.divide %32, %41 : tensor<4xf32>
    %cst_15 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %43 = stablehlo.power %cst_15, %1 : tensor<f32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %44 = stablehlo.subtract %cst_16, %43 : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %46 = stablehlo.divide %38, %45 : tensor<4xf32>
    %cst_17 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %48 = stablehlo.multiply %47, %42 : tensor<4xf32>
    %49 = stablehlo.sqrt %46 : tensor<4xf32>
    %cst_18 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %51 = stablehlo.add %49, %50 : tensor<4xf32>
    %52 = stablehlo.divide %48, %51 : tensor<4xf32>
    %53 = stablehlo.subtract %arg1, %52 : tensor<4xf32>
    return %0, %27, %53, %6, %32, %12, %38 : tensor<i32>, tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<4xf32>
  }
}
