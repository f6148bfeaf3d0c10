module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi1>) -> (tensor<4xi8> {jax.result_info = "result[0]"}, tensor<4xi16> {jax.result_info = "result[1]"}, tensor<4xi32> {jax.result_info = "result[2]"}, tensor<4xi64> {jax.result_info = "result[3]"}, tensor<4xui8> {jax.result_info = "result[4]"}, tensor<4xui16> {jax.result_info = "result[5]"}, tensor<4xui32> {jax.result_info = "result[6]"}, tensor<4xui64> {jax.result_info = "result[7]"}, tensor<4xf16> {jax.result_info = "result[8]"}, tensor<4xbf16> {jax.result_info = "result[9]"}, tensor<4xf32> {jax.result_info = "result[10]"}, tensor<4xf64> {jax.result_info = "result[11]"}, tensor<4xcomplex<f32>> {jax.result_info = "result[12]"}, tensor<4xcomplex<f64>> {jax.result_info = "result[13]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xi8>
    %1 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xi16>
    %2 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xi32>
    %3 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xi64>
    %4 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xui8>
    %5 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xui16>
    %6 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xui32>
    %7 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xui64>
    %8 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xf16>
    %9 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xbf16>
    %10 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xf32>
    %11 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xf64>
    %12 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xcomplex<f32>>
    %13 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xcomplex<f64>>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<4xi8>, tensor<4xi16>, tensor<4xi32>, tensor<4xi64>, tensor<4xui8>, tensor<4xui16>, tensor<4xui32>, tensor<4xui64>, tensor<4xf16>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf64>, tensor<4xcomplex<f32>>, tensor<4xcomplex<f64>>
  }
}
