module @jit__int8_matmul attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x32xi8>, %arg1: tensor<32x6xi8>, %arg2: tensor<5xf32>, %arg3: tensor<6xf32>, %arg4: tensor<6xf32>) -> (tensor<5x6xi32> {jax.result_info = "result[0]"}, tensor<5x6xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x32xi8>, tensor<32x6xi8>) -> tensor<5x6xi32>
    %1 = stablehlo.convert %0 : (tensor<5x6xi32>) -> tensor<5x6xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x6xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<5x6xf32>
    %5 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<5x6xf32>
    %7 = stablehlo.multiply %4, %6 : tensor<5x6xf32>
    %8 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<5x6xf32>
    %10 = stablehlo.add %7, %9 : tensor<5x6xf32>
    return %0, %10 : tensor<5x6xi32>, tensor<5x6xf32>
  }
}
