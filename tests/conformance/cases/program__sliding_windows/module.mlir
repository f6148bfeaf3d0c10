module @jit__windows attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<14xf32>, %arg1: tensor<7xi32>) -> (tensor<7x4xf32> {jax.result_info = "result[0]"}, tensor<7xf32> {jax.result_info = "result[1]"}, tensor<7xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi1>
    %c_0 = stablehlo.constant dense<14> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<7xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<7xi1>, tensor<7xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<7xi32>) -> tensor<7x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 4>}> : (tensor<14xf32>, tensor<7x1xi32>) -> tensor<7x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<7x4xf32>, tensor<f32>) -> tensor<7xf32>
    %cst_1 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %9 = stablehlo.divide %7, %8 : tensor<7xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.maximum across dimensions = [1] : (tensor<7x4xf32>, tensor<f32>) -> tensor<7xf32>
    return %6, %9, %10 : tensor<7x4xf32>, tensor<7xf32>, tensor<7xf32>
  }
}
