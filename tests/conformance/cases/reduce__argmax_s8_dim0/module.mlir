module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x5xi8>) -> (tensor<5xi32> {jax.result_info = "result"}) {
    %0 = call @argmax(%arg0) : (tensor<6x5xi8>) -> tensor<5xi32>
    return %0 : tensor<5xi32>
  }
  func.func private @argmax(%arg0: tensor<6x5xi8>) -> tensor<5xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<6x5xi32>
    %c = stablehlo.constant dense<-128> : tensor<i8>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %c), (%0 init: %c_0) across dimensions = [0] : (tensor<6x5xi8>, tensor<6x5xi32>, tensor<i8>, tensor<i32>) -> (tensor<5xi8>, tensor<5xi32>)
     reducer(%arg1: tensor<i8>, %arg3: tensor<i8>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<i8>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<i8>, tensor<i32>
    }
    return %1#1 : tensor<5xi32>
  }
}
