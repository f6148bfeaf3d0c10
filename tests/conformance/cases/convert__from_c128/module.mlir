module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<37xcomplex<f64>>) -> (tensor<37xi8> {jax.result_info = "result[0]"}, tensor<37xi16> {jax.result_info = "result[1]"}, tensor<37xi32> {jax.result_info = "result[2]"}, tensor<37xi64> {jax.result_info = "result[3]"}, tensor<37xui8> {jax.result_info = "result[4]"}, tensor<37xui16> {jax.result_info = "result[5]"}, tensor<37xui32> {jax.result_info = "result[6]"}, tensor<37xui64> {jax.result_info = "result[7]"}, tensor<37xf16> {jax.result_info = "result[8]"}, tensor<37xbf16> {jax.result_info = "result[9]"}, tensor<37xf32> {jax.result_info = "result[10]"}, tensor<37xf64> {jax.result_info = "result[11]"}, tensor<37xcomplex<f32>> {jax.result_info = "result[12]"}) {
    %0 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %1 = stablehlo.convert %0 : (tensor<37xf64>) -> tensor<37xi8>
    %2 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %3 = stablehlo.convert %2 : (tensor<37xf64>) -> tensor<37xi16>
    %4 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %5 = stablehlo.convert %4 : (tensor<37xf64>) -> tensor<37xi32>
    %6 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %7 = stablehlo.convert %6 : (tensor<37xf64>) -> tensor<37xi64>
    %8 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %9 = stablehlo.convert %8 : (tensor<37xf64>) -> tensor<37xui8>
    %10 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %11 = stablehlo.convert %10 : (tensor<37xf64>) -> tensor<37xui16>
    %12 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %13 = stablehlo.convert %12 : (tensor<37xf64>) -> tensor<37xui32>
    %14 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %15 = stablehlo.convert %14 : (tensor<37xf64>) -> tensor<37xui64>
    %16 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %17 = stablehlo.convert %16 : (tensor<37xf64>) -> tensor<37xf16>
    %18 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %19 = stablehlo.convert %18 : (tensor<37xf64>) -> tensor<37xbf16>
    %20 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %21 = stablehlo.convert %20 : (tensor<37xf64>) -> tensor<37xf32>
    %22 = stablehlo.real %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xf64>
    %23 = stablehlo.convert %22 : tensor<37xf64>
    %24 = stablehlo.convert %arg0 : (tensor<37xcomplex<f64>>) -> tensor<37xcomplex<f32>>
    return %1, %3, %5, %7, %9, %11, %13, %15, %17, %19, %21, %23, %24 : tensor<37xi8>, tensor<37xi16>, tensor<37xi32>, tensor<37xi64>, tensor<37xui8>, tensor<37xui16>, tensor<37xui32>, tensor<37xui64>, tensor<37xf16>, tensor<37xbf16>, tensor<37xf32>, tensor<37xf64>, tensor<37xcomplex<f32>>
  }
}
