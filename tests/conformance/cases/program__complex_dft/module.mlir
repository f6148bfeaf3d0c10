module @jit__dft attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x8xf32>) -> (tensor<3x8xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<3x8xf32> {jax.result_info = "result[1]"}, tensor<3x3xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.iota dim = 0 : tensor<8xi32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<8xi32>) -> tensor<1x8xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<8x1xi32>) -> tensor<8x8xi32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x8xi32>) -> tensor<8x8xi32>
    %5 = stablehlo.multiply %3, %4 : tensor<8x8xi32>
    %6 = stablehlo.convert %5 : (tensor<8x8xi32>) -> tensor<8x8xf32>
    %cst = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %8 = stablehlo.divide %6, %7 : tensor<8x8xf32>
    %9 = stablehlo.convert %8 : (tensor<8x8xf32>) -> tensor<8x8xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(0.000000e+00,-6.28318548)> : tensor<complex<f32>>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<8x8xcomplex<f32>>
    %11 = stablehlo.multiply %10, %9 : tensor<8x8xcomplex<f32>>
    %12 = stablehlo.exponential %11 : tensor<8x8xcomplex<f32>>
    %13 = stablehlo.convert %arg0 : (tensor<3x8xf32>) -> tensor<3x8xcomplex<f32>>
    %14 = stablehlo.transpose %12, dims = [1, 0] : (tensor<8x8xcomplex<f32>>) -> tensor<8x8xcomplex<f32>>
    %15 = stablehlo.dot_general %13, %14, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x8xcomplex<f32>>, tensor<8x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>>
    %16 = stablehlo.abs %15 : (tensor<3x8xcomplex<f32>>) -> tensor<3x8xf32>
    %17 = stablehlo.slice %15 [0:3, 1:4] : (tensor<3x8xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %18 = call @angle(%17) : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
    return %15, %16, %18 : tensor<3x8xcomplex<f32>>, tensor<3x8xf32>, tensor<3x3xf32>
  }
  func.func private @angle(%arg0: tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32> {
    %0 = stablehlo.real %arg0 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
    %1 = stablehlo.imag %arg0 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
    %2 = stablehlo.atan2 %1, %0 : tensor<3x3xf32>
    return %2 : tensor<3x3xf32>
  }
}
