"""A first look at rtorchpy from Python: run with `make demo`."""
from rtorchpy import autograd_grad, torch_ones, torch_tensor, with_no_grad

print("A tensor that records what is done to it:")
x = torch_ones(2, 2, requires_grad=True)
print(x)

y = x + 2
z = y * y * 3
out = z.mean()
print("\nout = mean(3 * (x + 2)^2), made by", out.grad_fn)
print(out)

out.backward()
print("\nd(out)/dx = 3/2 * (x + 2) = 4.5 everywhere:")
print(x.grad)

print("\nSecond derivatives: d2/dx2 of x^3 at x = 2 is 12")
s = torch_tensor(2.0, requires_grad=True)
(first,) = autograd_grad(s ** 3, s, create_graph=True)
(second,) = autograd_grad(first, s)
print("first:", first.item(), " second:", second.item())

print("\nNo history is recorded under with_no_grad():")
with with_no_grad():
    print("(x * 2).requires_grad =", (x * 2).requires_grad)
