module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<31xi8>) -> (tensor<31xi1> {jax.result_info = "result[0]"}, tensor<31xi16> {jax.result_info = "result[1]"}, tensor<31xi32> {jax.result_info = "result[2]"}, tensor<31xi64> {jax.result_info = "result[3]"}, tensor<31xui8> {jax.result_info = "result[4]"}, tensor<31xui16> {jax.result_info = "result[5]"}, tensor<31xui32> {jax.result_info = "result[6]"}, tensor<31xui64> {jax.result_info = "result[7]"}, tensor<31xf16> {jax.result_info = "result[8]"}, tensor<31xbf16> {jax.result_info = "result[9]"}, tensor<31xf32> {jax.result_info = "result[10]"}, tensor<31xf64> {jax.result_info = "result[11]"}, tensor<31xcomplex<f32>> {jax.result_info = "result[12]"}, tensor<31xcomplex<f64>> {jax.result_info = "result[13]"}) {
    %c = stablehlo.constant dense<0> : tensor<i8>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i8>) -> tensor<31xi8>
    %1 = stablehlo.compare NE, %arg0, %0, SIGNED : (tensor<31xi8>, tensor<31xi8>) -> tensor<31xi1>
    %2 = stablehlo.convert %1 : tensor<31xi1>
    %3 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xi16>
    %4 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xi32>
    %5 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xi64>
    %6 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xui8>
    %7 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xui16>
    %8 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xui32>
    %9 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xui64>
    %10 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xf16>
    %11 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xbf16>
    %12 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xf32>
    %13 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xf64>
    %14 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xcomplex<f32>>
    %15 = stablehlo.convert %arg0 : (tensor<31xi8>) -> tensor<31xcomplex<f64>>
    return %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15 : tensor<31xi1>, tensor<31xi16>, tensor<31xi32>, tensor<31xi64>, tensor<31xui8>, tensor<31xui16>, tensor<31xui32>, tensor<31xui64>, tensor<31xf16>, tensor<31xbf16>, tensor<31xf32>, tensor<31xf64>, tensor<31xcomplex<f32>>, tensor<31xcomplex<f64>>
  }
}
