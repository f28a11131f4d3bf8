# nn_utils_weight_norm from R: R torch's R6 helper, 1-based dim, values and gradients recorded
# from PyTorch 2.13 (torch.nn.utils.weight_norm(lin, dim = 1) in Python's 0-based dims).

make_lin <- function() {
  lin <- nn_linear(3, 2)
  with_no_grad({
    lin$weight$copy_(torch_tensor(rbind(c(0.5, -1, 2), c(1.5, 0.25, -0.75))))
    lin$bias$zero_()
  })
  lin$to(dtype = torch_float64())
  lin
}

test_that("weight norm splits the weight and gives PyTorch's gradients", {
  lin <- make_lin()
  wn <- nn_utils_weight_norm$new("weight", 2)
  wn$apply(lin)
  expect_equal(sort(names(lin$parameters)), c("bias", "weight_g", "weight_v"))
  expect_equal(lin$weight_g$shape, c(1, 3))
  expect_equal(as.numeric(as_array(lin$weight_g)),
               c(1.5811388300841898, 1.0307764064044151, 2.1360009363293826))
  wn$recompute(lin)
  y <- lin(torch_tensor(rbind(c(1, 2, 3)), dtype = torch_float64()))
  (y * torch_tensor(rbind(c(1, -2)), dtype = torch_float64()))$sum()$backward()
  expect_equal(as.numeric(as_array(lin$weight_g$grad)),
               c(-1.5811388300841895, -2.9104275004359956, 4.915728182237484))
  expect_equal(as.numeric(as_array(lin$weight_v$grad)),
               c(1.5, -0.5000000000000002, -0.8235294117647056, -3.2941176470588234,
                 -1.602739726027398, -4.273972602739725))
  wn$remove(lin)
  expect_equal(sort(names(lin$parameters)), c("bias", "weight"))
  expect_equal(as.numeric(as_array(lin$weight)), c(0.5, 1.5, -1, 0.25, 2, -0.75))
})

test_that("weight norm over the whole tensor, and bad arguments", {
  lin <- make_lin()
  wn <- nn_utils_weight_norm$new("weight", NULL)
  wn$apply(lin)
  expect_equal(lin$weight_g$dim(), 0)
  expect_equal(as.numeric(as_array(wn$compute_weight(lin))), c(0.5, 1.5, -1, 0.25, 2, -0.75))
  expect_error(nn_utils_weight_norm$new("weight", 0), "1-based", class = "value_error")
  expect_error(nn_utils_weight_norm$new("weight", 3)$apply(make_lin()), "out of range",
               class = "index_error")
  expect_error(nn_utils_weight_norm$new("nope", 1)$apply(make_lin()), "no parameter",
               class = "value_error")
})

test_that("weight norm in a training loop does not leak", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  lin <- make_lin()
  wn <- nn_utils_weight_norm$new("weight", 1)
  wn$apply(lin)
  x <- torch_randn(4, 3, dtype = torch_float64())
  body <- function(i) {
    wn$recompute(lin)
    lin(x)$sum()$backward()
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})

test_that("the weight is libtorch's one node for dim 1 or the last, ops elsewhere", {
  node <- function(dim, module = make_lin()) {
    nn_utils_weight_norm$new("weight", dim)$apply(module)
    capture.output(print(module$weight$grad_fn))
  }
  expect_equal(node(1), "WeightNormInterfaceBackward0")
  expect_equal(node(2), "WeightNormInterfaceBackward0")
  expect_equal(node(-2), "WeightNormInterfaceBackward0")
  expect_equal(node(NULL), "MulBackward0")
  expect_equal(node(2, nn_conv2d(2, 3, 2)), "MulBackward0")
  lin <- make_lin()
  expect_error(nn_utils_weight_norm$new("weight", -3)$apply(lin), "out of range",
               class = "index_error")
})
