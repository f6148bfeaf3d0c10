module @jit__per_example_clipped attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4x5xf32>, %arg3: tensor<4x3xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<5x3xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x5xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<4x3xf32>
    %3 = stablehlo.add %0, %2 : tensor<4x3xf32>
    %4 = stablehlo.tanh %3 : tensor<4x3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<4x3xf32>
    %7 = stablehlo.subtract %4, %arg3 : tensor<4x3xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<4x3xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %10 = stablehlo.multiply %9, %7 : tensor<4x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%8 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<4x3xf32>
    %15 = stablehlo.multiply %14, %10 : tensor<4x3xf32>
    %16 = stablehlo.multiply %15, %6 : tensor<4x3xf32>
    %17 = stablehlo.multiply %16, %4 : tensor<4x3xf32>
    %18 = stablehlo.add %16, %17 : tensor<4x3xf32>
    %19 = stablehlo.dot_general %18, %arg2, batching_dims = [0] x [0], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x3x5xf32>
    %20 = stablehlo.transpose %19, dims = [0, 2, 1] : (tensor<4x3x5xf32>) -> tensor<4x5x3xf32>
    %21 = stablehlo.multiply %20, %20 : tensor<4x5x3xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.reduce(%21 init: %cst_3) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x5x3xf32>, tensor<f32>) -> tensor<4xf32>
    %23 = stablehlo.multiply %18, %18 : tensor<4x3xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_4) applies stablehlo.add across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %25 = stablehlo.add %22, %24 : tensor<4xf32>
    %26 = stablehlo.sqrt %25 : tensor<4xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %28 = stablehlo.divide %27, %26 : tensor<4xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %30 = stablehlo.minimum %29, %28 : tensor<4xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0] : (tensor<4xf32>) -> tensor<4x1x1xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2] : (tensor<4x1x1xf32>) -> tensor<4x5x3xf32>
    %33 = stablehlo.multiply %20, %32 : tensor<4x5x3xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<4x5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    %cst_8 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %36 = stablehlo.divide %34, %35 : tensor<5x3xf32>
    %37 = stablehlo.broadcast_in_dim %30, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %39 = stablehlo.multiply %18, %38 : tensor<4x3xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.reduce(%39 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_10 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %42 = stablehlo.divide %40, %41 : tensor<3xf32>
    return %26, %36, %42 : tensor<4xf32>, tensor<5x3xf32>, tensor<3xf32>
  }
}
