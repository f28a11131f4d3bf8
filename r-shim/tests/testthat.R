library(testthat)
library(rtorchpy)

test_check("rtorchpy")
