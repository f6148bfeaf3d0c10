module @jit__residual_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x64xf32>, %arg1: tensor<64x64xf32>, %arg2: tensor<64x64xf32>, %arg3: tensor<64xf32>) -> (tensor<32x64xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %cst_0 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<32x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<32x64xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<32x64xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<32xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %cst_2 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<32x1xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<32x64xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %14 = stablehlo.add %10, %13 : tensor<32x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<32x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
    %17 = stablehlo.multiply %12, %16 : tensor<32x64xf32>
    %18 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<32x64xf32>
    %20 = stablehlo.multiply %17, %19 : tensor<32x64xf32>
    %21 = stablehlo.dot_general %20, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
    %22 = stablehlo.multiply %21, %21 : tensor<32x64xf32>
    %23 = stablehlo.multiply %22, %21 : tensor<32x64xf32>
    %cst_4 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %25 = stablehlo.multiply %24, %23 : tensor<32x64xf32>
    %26 = stablehlo.add %21, %25 : tensor<32x64xf32>
    %cst_5 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %28 = stablehlo.multiply %27, %26 : tensor<32x64xf32>
    %29 = stablehlo.tanh %28 : tensor<32x64xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %31 = stablehlo.add %30, %29 : tensor<32x64xf32>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %33 = stablehlo.multiply %32, %31 : tensor<32x64xf32>
    %34 = stablehlo.multiply %21, %33 : tensor<32x64xf32>
    %35 = stablehlo.dot_general %34, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
    %36 = stablehlo.add %arg0, %35 : tensor<32x64xf32>
    return %36 : tensor<32x64xf32>
  }
}
