module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32x4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<8x16xf32>, %arg5: tensor<8x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<16x32xf32> {jax.result_info = "result[1][0]"}, tensor<32xf32> {jax.result_info = "result[1][1]"}, tensor<32x4xf32> {jax.result_info = "result[1][2]"}, tensor<4xf32> {jax.result_info = "result[1][3]"}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %3 = stablehlo.add %0, %2 : tensor<8x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %5 = stablehlo.maximum %3, %4 : tensor<8x32xf32>
    %6 = stablehlo.compare EQ, %3, %5, FLOAT : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xi1>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %9 = stablehlo.select %6, %7, %8 : tensor<8x32xi1>, tensor<8x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %11 = stablehlo.compare EQ, %10, %5, FLOAT : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xi1>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %14 = stablehlo.select %11, %12, %13 : tensor<8x32xi1>, tensor<8x32xf32>
    %15 = stablehlo.divide %9, %14 : tensor<8x32xf32>
    %16 = stablehlo.dot_general %5, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
    %17 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<8x4xf32>
    %19 = stablehlo.add %16, %18 : tensor<8x4xf32>
    %20 = stablehlo.subtract %19, %arg5 : tensor<8x4xf32>
    %21 = stablehlo.multiply %20, %20 : tensor<8x4xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %23 = stablehlo.multiply %22, %20 : tensor<8x4xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%21 init: %cst_6) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_7 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %25 = stablehlo.divide %24, %cst_7 : tensor<f32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_9 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %26 = stablehlo.divide %cst_8, %cst_9 : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %28 = stablehlo.multiply %27, %23 : tensor<8x4xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.reduce(%28 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %30 = stablehlo.reshape %29 : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.reduce(%30 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %32 = stablehlo.dot_general %28, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
    %33 = stablehlo.transpose %32, dims = [1, 0] : (tensor<4x32xf32>) -> tensor<32x4xf32>
    %34 = stablehlo.dot_general %28, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<32x4xf32>) -> tensor<8x32xf32>
    %35 = stablehlo.multiply %34, %15 : tensor<8x32xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.reduce(%35 init: %cst_12) applies stablehlo.add across dimensions = [0] : (tensor<8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %37 = stablehlo.reshape %36 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.reduce(%37 init: %cst_13) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %39 = stablehlo.dot_general %35, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
    %40 = stablehlo.transpose %39, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %cst_14 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16x32xf32>
    %42 = stablehlo.multiply %41, %40 : tensor<16x32xf32>
    %43 = stablehlo.subtract %arg0, %42 : tensor<16x32xf32>
    %cst_15 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %45 = stablehlo.multiply %44, %38 : tensor<32xf32>
    %46 = stablehlo.subtract %arg1, %45 : tensor<32xf32>
    %cst_16 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
    %48 = stablehlo.multiply %47, %33 : tensor<32x4xf32>
    %49 = stablehlo.subtract %arg2, %48 : tensor<32x4xf32>
    %cst_17 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %51 = stablehlo.multiply %50, %31 : tensor<4xf32>
    %52 = stablehlo.subtract %arg3, %51 : tensor<4xf32>
    return %25, %43, %46, %49, %52 : tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>
  }
}
