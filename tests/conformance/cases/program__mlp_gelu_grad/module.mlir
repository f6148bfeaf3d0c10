module @jit__mlp_gelu_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x8xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<16x3xf32>, %arg3: tensor<5x3xf32>) -> (tensor<5x8xf32> {jax.result_info = "result[0]"}, tensor<8x16xf32> {jax.result_info = "result[1]"}, tensor<16x3xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %2 = stablehlo.multiply %1, %0 : tensor<5x16xf32>
    %3 = stablehlo.negate %0 : tensor<5x16xf32>
    %cst_0 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %5 = stablehlo.multiply %3, %4 : tensor<5x16xf32>
    %6 = chlo.erfc %5 : tensor<5x16xf32> -> tensor<5x16xf32>
    %7 = chlo.square %5 : tensor<5x16xf32> -> tensor<5x16xf32>
    %8 = stablehlo.negate %7 : tensor<5x16xf32>
    %9 = stablehlo.exponential %8 : tensor<5x16xf32>
    %10 = stablehlo.multiply %2, %6 : tensor<5x16xf32>
    %11 = stablehlo.dot_general %10, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x16xf32>, tensor<16x3xf32>) -> tensor<5x3xf32>
    %12 = stablehlo.tanh %11 : tensor<5x3xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %14 = stablehlo.subtract %13, %12 : tensor<5x3xf32>
    %15 = stablehlo.subtract %12, %arg3 : tensor<5x3xf32>
    %16 = stablehlo.multiply %15, %15 : tensor<5x3xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %18 = stablehlo.multiply %17, %15 : tensor<5x3xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%16 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %21 = stablehlo.multiply %20, %18 : tensor<5x3xf32>
    %22 = stablehlo.multiply %21, %14 : tensor<5x3xf32>
    %23 = stablehlo.multiply %22, %12 : tensor<5x3xf32>
    %24 = stablehlo.add %22, %23 : tensor<5x3xf32>
    %25 = stablehlo.dot_general %24, %10, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x3xf32>, tensor<5x16xf32>) -> tensor<3x16xf32>
    %26 = stablehlo.transpose %25, dims = [1, 0] : (tensor<3x16xf32>) -> tensor<16x3xf32>
    %27 = stablehlo.dot_general %24, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5x3xf32>, tensor<16x3xf32>) -> tensor<5x16xf32>
    %28 = stablehlo.multiply %2, %27 : tensor<5x16xf32>
    %29 = stablehlo.multiply %27, %6 : tensor<5x16xf32>
    %cst_5 = stablehlo.constant dense<-1.12837923> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %31 = stablehlo.multiply %30, %28 : tensor<5x16xf32>
    %32 = stablehlo.multiply %31, %9 : tensor<5x16xf32>
    %cst_6 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %34 = stablehlo.multiply %32, %33 : tensor<5x16xf32>
    %35 = stablehlo.negate %34 : tensor<5x16xf32>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %37 = stablehlo.multiply %36, %29 : tensor<5x16xf32>
    %38 = stablehlo.add %35, %37 : tensor<5x16xf32>
    %39 = stablehlo.dot_general %38, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x16xf32>, tensor<5x8xf32>) -> tensor<16x8xf32>
    %40 = stablehlo.transpose %39, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %41 = stablehlo.dot_general %38, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5x16xf32>, tensor<8x16xf32>) -> tensor<5x8xf32>
    return %41, %40, %26 : tensor<5x8xf32>, tensor<8x16xf32>, tensor<16x3xf32>
  }
}
