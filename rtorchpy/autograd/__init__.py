"""The autograd machinery: graph, engine, grad mode, custom functions, gradient checks."""
