module @mulhi {
  func.func public @main(%a: tensor<100xi8>, %b: tensor<100xi8>) -> tensor<100xi8> {
    %0 = "chlo.mulhi"(%a, %b) : (tensor<100xi8>, tensor<100xi8>) -> tensor<100xi8>
    return %0 : tensor<100xi8>
  }
}
