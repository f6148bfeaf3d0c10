module @mulhi {
  func.func public @main(%a: tensor<100xi64>, %b: tensor<100xi64>) -> tensor<100xi64> {
    %0 = "chlo.mulhi"(%a, %b) : (tensor<100xi64>, tensor<100xi64>) -> tensor<100xi64>
    return %0 : tensor<100xi64>
  }
}
