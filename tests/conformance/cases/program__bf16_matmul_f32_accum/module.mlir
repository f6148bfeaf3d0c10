module @jit__bf16_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x32xbf16>, %arg1: tensor<32x16xbf16>, %arg2: tensor<16xf32>, %arg3: tensor<16x8xbf16>) -> (tensor<8x8xf32> {jax.result_info = "result[0]"}, tensor<8x16xbf16> {jax.result_info = "result[1]"}, tensor<8x16xbf16> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<32x16xbf16>) -> tensor<8x16xbf16>
    %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<32x16xbf16>) -> tensor<8x16xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %4 = stablehlo.add %1, %3 : tensor<8x16xf32>
    %5 = stablehlo.multiply %4, %4 : tensor<8x16xf32>
    %6 = stablehlo.multiply %5, %4 : tensor<8x16xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<8x16xf32>
    %9 = stablehlo.add %4, %8 : tensor<8x16xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %11 = stablehlo.multiply %10, %9 : tensor<8x16xf32>
    %12 = stablehlo.tanh %11 : tensor<8x16xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %14 = stablehlo.add %13, %12 : tensor<8x16xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %16 = stablehlo.multiply %15, %14 : tensor<8x16xf32>
    %17 = stablehlo.multiply %4, %16 : tensor<8x16xf32>
    %18 = stablehlo.convert %17 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %19 = stablehlo.dot_general %18, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xbf16>, tensor<16x8xbf16>) -> tensor<8x8xf32>
    return %19, %0, %18 : tensor<8x8xf32>, tensor<8x16xbf16>, tensor<8x16xbf16>
  }
}
