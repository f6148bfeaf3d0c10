module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<27xui32>) -> (tensor<27xi1> {jax.result_info = "result[0]"}, tensor<27xi8> {jax.result_info = "result[1]"}, tensor<27xi16> {jax.result_info = "result[2]"}, tensor<27xi32> {jax.result_info = "result[3]"}, tensor<27xi64> {jax.result_info = "result[4]"}, tensor<27xui8> {jax.result_info = "result[5]"}, tensor<27xui16> {jax.result_info = "result[6]"}, tensor<27xui64> {jax.result_info = "result[7]"}, tensor<27xf16> {jax.result_info = "result[8]"}, tensor<27xbf16> {jax.result_info = "result[9]"}, tensor<27xf32> {jax.result_info = "result[10]"}, tensor<27xf64> {jax.result_info = "result[11]"}, tensor<27xcomplex<f32>> {jax.result_info = "result[12]"}, tensor<27xcomplex<f64>> {jax.result_info = "result[13]"}) {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<27xui32>
    %1 = stablehlo.compare NE, %arg0, %0, UNSIGNED : (tensor<27xui32>, tensor<27xui32>) -> tensor<27xi1>
    %2 = stablehlo.convert %1 : tensor<27xi1>
    %3 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xi8>
    %4 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xi16>
    %5 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xi32>
    %6 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xi64>
    %7 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xui8>
    %8 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xui16>
    %9 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xui64>
    %10 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xf16>
    %11 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xbf16>
    %12 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xf32>
    %13 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xf64>
    %14 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xcomplex<f32>>
    %15 = stablehlo.convert %arg0 : (tensor<27xui32>) -> tensor<27xcomplex<f64>>
    return %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15 : tensor<27xi1>, tensor<27xi8>, tensor<27xi16>, tensor<27xi32>, tensor<27xi64>, tensor<27xui8>, tensor<27xui16>, tensor<27xui64>, tensor<27xf16>, tensor<27xbf16>, tensor<27xf32>, tensor<27xf64>, tensor<27xcomplex<f32>>, tensor<27xcomplex<f64>>
  }
}
