module @jit__bf16_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x32xbf16>, %arg1: tensor<32x32xbf16>, %arg2: tensor<32x32xbf16>, %arg3: tensor<32xbf16>) -> (tensor<8x32xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<8x32xbf16>) -> tensor<8x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_0 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %4 = stablehlo.divide %2, %3 : tensor<8x1xf32>
    %5 = stablehlo.convert %4 : (tensor<8x1xf32>) -> tensor<8x1xbf16>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<8x1xbf16>) -> tensor<8x32xbf16>
    %7 = stablehlo.subtract %arg0, %6 : tensor<8x32xbf16>
    %8 = stablehlo.multiply %7, %7 : tensor<8x32xbf16>
    %9 = stablehlo.convert %8 : (tensor<8x32xbf16>) -> tensor<8x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_2 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %13 = stablehlo.divide %11, %12 : tensor<8x1xf32>
    %14 = stablehlo.convert %13 : (tensor<8x1xf32>) -> tensor<8x1xbf16>
    %15 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<8x1xbf16>) -> tensor<8x32xbf16>
    %16 = stablehlo.subtract %arg0, %15 : tensor<8x32xbf16>
    %cst_3 = stablehlo.constant dense<1.001360e-05> : tensor<bf16>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<8x1xbf16>
    %18 = stablehlo.add %14, %17 : tensor<8x1xbf16>
    %19 = stablehlo.rsqrt %18 : tensor<8x1xbf16>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<8x1xbf16>) -> tensor<8x32xbf16>
    %21 = stablehlo.multiply %16, %20 : tensor<8x32xbf16>
    %22 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<32xbf16>) -> tensor<1x32xbf16>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<1x32xbf16>) -> tensor<8x32xbf16>
    %24 = stablehlo.multiply %21, %23 : tensor<8x32xbf16>
    %25 = stablehlo.dot_general %24, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<32x32xbf16>) -> tensor<8x32xbf16>
    %26 = stablehlo.multiply %25, %25 : tensor<8x32xbf16>
    %27 = stablehlo.multiply %26, %25 : tensor<8x32xbf16>
    %cst_4 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %28 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %29 = stablehlo.multiply %28, %27 : tensor<8x32xbf16>
    %30 = stablehlo.add %25, %29 : tensor<8x32xbf16>
    %cst_5 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %31 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %32 = stablehlo.multiply %31, %30 : tensor<8x32xbf16>
    %33 = stablehlo.tanh %32 : tensor<8x32xbf16>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %34 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %35 = stablehlo.add %34, %33 : tensor<8x32xbf16>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %36 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %37 = stablehlo.multiply %36, %35 : tensor<8x32xbf16>
    %38 = stablehlo.multiply %25, %37 : tensor<8x32xbf16>
    %39 = stablehlo.dot_general %38, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<32x32xbf16>) -> tensor<8x32xbf16>
    %40 = stablehlo.add %arg0, %39 : tensor<8x32xbf16>
    return %40 : tensor<8x32xbf16>
  }
}
