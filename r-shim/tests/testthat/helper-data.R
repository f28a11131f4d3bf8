# every index a sampler gives in one epoch
.epoch <- function(s) {
  it <- s$.iter()
  out <- c()
  while (!is.symbol(v <- it())) out <- c(out, v)
  out
}
