module @jit__complex attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xf32>, %arg1: tensor<7xf32>) -> (tensor<7xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<7xf32> {jax.result_info = "result[1]"}, tensor<7xf32> {jax.result_info = "result[2]"}, tensor<7xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<7xcomplex<f32>> {jax.result_info = "result[4]"}, tensor<7xcomplex<f32>> {jax.result_info = "result[5]"}, tensor<7xcomplex<f32>> {jax.result_info = "result[6]"}, tensor<7xcomplex<f32>> {jax.result_info = "result[7]"}, tensor<complex<f32>> {jax.result_info = "result[8]"}, tensor<7xcomplex<f32>> {jax.result_info = "result[9]"}) {
    %0 = stablehlo.complex %arg0, %arg1 : tensor<7xcomplex<f32>>
    %1 = stablehlo.reverse %0, dims = [0] : tensor<7xcomplex<f32>>
    %cst = stablehlo.constant dense<(0.000000e+00,5.000000e-01)> : tensor<complex<f32>>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<7xcomplex<f32>>
    %3 = stablehlo.add %1, %2 : tensor<7xcomplex<f32>>
    %4 = stablehlo.exponential %0 : tensor<7xcomplex<f32>>
    %5 = stablehlo.abs %0 : (tensor<7xcomplex<f32>>) -> tensor<7xf32>
    %6 = call @angle(%0) : (tensor<7xcomplex<f32>>) -> tensor<7xf32>
    %7 = stablehlo.real %0 : (tensor<7xcomplex<f32>>) -> tensor<7xf32>
    %8 = stablehlo.imag %0 : (tensor<7xcomplex<f32>>) -> tensor<7xf32>
    %9 = stablehlo.negate %8 : tensor<7xf32>
    %10 = stablehlo.complex %7, %9 : tensor<7xcomplex<f32>>
    %11 = stablehlo.multiply %0, %10 : tensor<7xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<7xcomplex<f32>>
    %13 = stablehlo.divide %12, %0 : tensor<7xcomplex<f32>>
    %14 = stablehlo.sqrt %0 : tensor<7xcomplex<f32>>
    %15 = stablehlo.log %0 : tensor<7xcomplex<f32>>
    %16 = stablehlo.divide %0, %3 : tensor<7xcomplex<f32>>
    %17 = stablehlo.multiply %0, %3 : tensor<7xcomplex<f32>>
    %cst_1 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %18 = stablehlo.reduce(%17 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<7xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
    %cst_2 = stablehlo.constant dense<(3.000000e-01,0.000000e+00)> : tensor<complex<f32>>
    %19 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<complex<f32>>) -> tensor<7xcomplex<f32>>
    %20 = stablehlo.multiply %0, %19 : tensor<7xcomplex<f32>>
    %21 = stablehlo.tanh %20 : tensor<7xcomplex<f32>>
    return %4, %5, %6, %11, %13, %14, %15, %16, %18, %21 : tensor<7xcomplex<f32>>, tensor<7xf32>, tensor<7xf32>, tensor<7xcomplex<f32>>, tensor<7xcomplex<f32>>, tensor<7xcomplex<f32>>, tensor<7xcomplex<f32>>, tensor<7xcomplex<f32>>, tensor<complex<f32>>, tensor<7xcomplex<f32>>
  }
  func.func private @angle(%arg0: tensor<7xcomplex<f32>>) -> tensor<7xf32> {
    %0 = stablehlo.real %arg0 : (tensor<7xcomplex<f32>>) -> tensor<7xf32>
    %1 = stablehlo.imag %arg0 : (tensor<7xcomplex<f32>>) -> tensor<7xf32>
    %2 = stablehlo.atan2 %1, %0 : tensor<7xf32>
    return %2 : tensor<7xf32>
  }
}
