"""Optimizers and learning-rate schedulers, with R torch's names and PyTorch's update rules.

* optimizers: :class:`optim_sgd`, :class:`optim_adam`, :class:`optim_adamw`,
  :class:`optim_rmsprop`, :class:`optim_adagrad`, :class:`optim_adadelta`,
  :class:`optim_lbfgs`, :class:`optim_rprop`, :class:`optim_asgd`; your own by subclassing
  :class:`Optimizer` or with :func:`optimizer`;
* schedulers: :class:`lr_step`, :class:`lr_multiplicative`, :class:`lr_lambda`,
  :class:`lr_one_cycle`, :class:`lr_cosine_annealing`, :class:`lr_reduce_on_plateau`; your own
  by subclassing :class:`LRScheduler` or with :func:`lr_scheduler`.

A training loop::

    opt = optim_adam([w, b], lr=0.01)
    for epoch in range(100):
        opt.zero_grad()
        loss = ((x.matmul(w) + b - y) ** 2).mean()
        loss.backward()
        opt.step()
"""
from .adadelta import optim_adadelta
from .adagrad import optim_adagrad
from .adam import optim_adam, optim_adamw
from .lbfgs import optim_lbfgs
from .lr_scheduler import (
    LRScheduler,
    lr_cosine_annealing,
    lr_lambda,
    lr_multiplicative,
    lr_one_cycle,
    lr_reduce_on_plateau,
    lr_scheduler,
    lr_step,
)
from .optimizer import Optimizer, is_optimizer, optim_required, optimizer
from .rmsprop import optim_rmsprop
from .rprop_asgd import optim_asgd, optim_rprop
from .sgd import optim_sgd

__all__ = [
    "Optimizer", "optimizer", "optim_required", "is_optimizer", "optim_sgd", "optim_adam",
    "optim_adamw", "optim_rmsprop", "optim_adagrad", "optim_adadelta", "optim_lbfgs",
    "LRScheduler", "lr_scheduler", "lr_step", "lr_multiplicative", "lr_lambda", "lr_one_cycle",
    "lr_cosine_annealing", "lr_reduce_on_plateau", "optim_rprop", "optim_asgd",
]
