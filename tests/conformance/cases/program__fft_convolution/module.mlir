module @jit__fft_conv attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x16xf32>, %arg1: tensor<5xf32>) -> (tensor<2x16xf32> {jax.result_info = "result"}) {
    %0 = call @fft(%arg0) : (tensor<2x16xf32>) -> tensor<2x9xcomplex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = call @_pad(%arg1, %c) : (tensor<5xf32>, tensor<i32>) -> tensor<16xf32>
    %2 = call @fft_0(%1) : (tensor<16xf32>) -> tensor<9xcomplex<f32>>
    %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<9xcomplex<f32>>) -> tensor<1x9xcomplex<f32>>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x9xcomplex<f32>>) -> tensor<2x9xcomplex<f32>>
    %5 = stablehlo.multiply %0, %4 : tensor<2x9xcomplex<f32>>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %6 = call @_pad_1(%5, %c_0) : (tensor<2x9xcomplex<f32>>, tensor<i32>) -> tensor<2x9xcomplex<f32>>
    %7 = call @fft_2(%6) : (tensor<2x9xcomplex<f32>>) -> tensor<2x16xf32>
    return %7 : tensor<2x16xf32>
  }
  func.func private @fft(%arg0: tensor<2x16xf32>) -> tensor<2x9xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [16] : (tensor<2x16xf32>) -> tensor<2x9xcomplex<f32>>
    return %0 : tensor<2x9xcomplex<f32>>
  }
  func.func private @_pad(%arg0: tensor<5xf32>, %arg1: tensor<i32>) -> tensor<16xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [0], high = [11], interior = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<16xf32>
    return %1 : tensor<16xf32>
  }
  func.func private @fft_0(%arg0: tensor<16xf32>) -> tensor<9xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [16] : (tensor<16xf32>) -> tensor<9xcomplex<f32>>
    return %0 : tensor<9xcomplex<f32>>
  }
  func.func private @_pad_1(%arg0: tensor<2x9xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<2x9xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<2x9xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2x9xcomplex<f32>>
    return %1 : tensor<2x9xcomplex<f32>>
  }
  func.func private @fft_2(%arg0: tensor<2x9xcomplex<f32>>) -> tensor<2x16xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [16] : (tensor<2x9xcomplex<f32>>) -> tensor<2x16xf32>
    return %0 : tensor<2x16xf32>
  }
}
