module @is_inf {
  func.func public @main(%arg0: tensor<75xf64>) -> (tensor<75xi1>, tensor<75xi1>, tensor<75xi1>) {
    %0 = chlo.is_inf %arg0 : tensor<75xf64> -> tensor<75xi1>
    %1 = chlo.is_neg_inf %arg0 : tensor<75xf64> -> tensor<75xi1>
    %2 = chlo.is_pos_inf %arg0 : tensor<75xf64> -> tensor<75xi1>
    return %0, %1, %2 : tensor<75xi1>, tensor<75xi1>, tensor<75xi1>
  }
}
