"""L-BFGS, with an optional strong-Wolfe line search (a port of PyTorch's, itself after
minFunc). It works on the parameters flattened into one vector."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.graph import bump_version
from ..tensor import Tensor
from .optimizer import Closure, Optimizer, ParamsLike, as_count, check_number

__all__ = ["optim_lbfgs"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to bounds."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Line search along ``d`` for a step satisfying the strong Wolfe conditions."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)

    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket = [t_prev, t]
            bracket_f = [f_prev, f_new]
            bracket_g = [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket = [t]
            bracket_f = [f_new]
            bracket_g = [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket = [t_prev, t]
            bracket_f = [f_prev, f_new]
            bracket_g = [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        # interpolate
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev = tmp
        f_prev = f_new
        g_prev = g_new.copy()
        gtd_prev = gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

    if ls_iter == max_ls:
        bracket = [0, t]
        bracket_f = [f, f_new]
        bracket_g = [g, g_new]

    # zoom: refine the bracket until a point satisfies the conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos] = t
            bracket_f[high_pos] = f_new
            bracket_g[high_pos] = g_new.copy()
            bracket_gtd[high_pos] = gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos] = t
            bracket_f[low_pos] = f_new
            bracket_g[low_pos] = g_new.copy()
            bracket_gtd[low_pos] = gtd_new

    t = bracket[low_pos]
    f_new = bracket_f[low_pos]
    g_new = bracket_g[low_pos]
    return f_new, g_new, t, ls_func_evals


def _wrap(value):
    """State as stored: arrays become tensors (lists of them too)."""
    if isinstance(value, np.ndarray):
        return Tensor._make(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _unwrap(value):
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    return value


class optim_lbfgs(Optimizer):
    """L-BFGS: ``optim_lbfgs(params, lr = 1, max_iter = 20, max_eval = NULL,
    tolerance_grad = 1e-07, tolerance_change = 1e-09, history_size = 100,
    line_search_fn = NULL)``.

    PyTorch's algorithm. ``step(closure)`` needs the closure: a function that zeroes the
    gradients, computes the loss, calls ``backward()`` and returns the loss. One step runs up
    to ``max_iter`` iterations and ``max_eval`` closure evaluations (default
    ``max_iter * 5 // 4``), stopping early when the largest gradient entry is at most
    ``tolerance_grad`` or the loss or step changes by less than ``tolerance_change``.
    ``line_search_fn = "strong_wolfe"`` chooses each step length by a line search satisfying
    the strong Wolfe conditions; without it the step length is ``lr`` (the first iteration
    scales it by ``min(1, 1 / sum(|g|))``). Returns the loss of the first closure call.

    Only one parameter group is supported (PyTorch's restriction), and the state (the
    direction, step and the curvature history ``old_dirs``/``old_stps``/``ro``) is kept on
    the first parameter.
    """

    def __init__(self, params: ParamsLike, lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-07,
                 tolerance_change: float = 1e-09, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        max_iter = as_count("max_iter", max_iter, 1, "Invalid max_iter value: {}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def add_param_group(self, param_group):
        """Refused once the optimizer exists: L-BFGS supports a single parameter group."""
        if getattr(self, "param_groups", None):
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(param_group)

    def _check_group(self, group):
        super()._check_group(group)
        group["max_iter"] = as_count("max_iter", group["max_iter"], 1,
                                     "Invalid max_iter value: {}")
        group["max_eval"] = as_count("max_eval", group["max_eval"], 1,
                                     "Invalid max_eval value: {}")
        check_number("tolerance_grad", group["tolerance_grad"], low=0)
        check_number("tolerance_change", group["tolerance_change"], low=0)
        group["history_size"] = as_count("history_size", group["history_size"], 1,
                                         "Invalid history_size value: {}")
        if group["line_search_fn"] not in (None, "strong_wolfe"):
            raise ValueError("only 'strong_wolfe' is supported as line_search_fn (or None), got "
                             f"{group['line_search_fn']!r}")

    # -- flat views of the parameters ------------------------------------------------------------
    def _gather_flat_grad(self):
        views = []
        for p in self._params:
            if p._grad is None:
                views.append(np.zeros(p._data.size, p._data.dtype))
            else:
                views.append(p._grad._data.reshape(-1))
        return np.concatenate(views) if len(views) > 1 else np.array(views[0], copy=True)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            n = p._data.size
            d = p._data
            d += update[offset:offset + n].reshape(d.shape) * step_size
            offset += n
            bump_version(p)

    def _clone_param(self):
        return [p._data.copy() for p in self._params]

    def _set_param(self, params_data):
        for p, data in zip(self._params, params_data):
            np.copyto(p._data, data)
            bump_version(p)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(self._eval_closure(closure))
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure: Closure | None = None) -> Any:
        """Run one L-BFGS step (up to ``max_iter`` iterations); returns the loss the closure
        gave before it."""
        if closure is None:
            raise ValueError("optim_lbfgs's step() needs a closure: a function that zeroes the "
                             "gradients, computes the loss, calls backward() and returns the loss")
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter = group["max_iter"]
        max_eval = group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        history_size = group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._eval_closure(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._gather_flat_grad()
        opt_cond = np.abs(flat_grad).max() <= tolerance_grad
        if opt_cond:
            return orig_loss

        d = _unwrap(state.get("d"))
        t = state.get("t")
        old_dirs = _unwrap(state.get("old_dirs"))
        old_stps = _unwrap(state.get("old_stps"))
        ro: Any = state.get("ro")  # (a list once the first iteration ran)
        H_diag = state.get("H_diag")
        prev_flat_grad = _unwrap(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # the descent direction
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs = []
                old_stps = []
                ro = []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                num_old = len(old_dirs)
                if "al" not in state or len(state["al"]) < history_size:
                    state["al"] = [None] * history_size
                al = state["al"]
                # two-loop recursion: q = -H * g
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q += old_dirs[i] * -al[i]
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r += old_stps[i] * (al[i] - be_i)

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.copy()
            else:
                np.copyto(prev_flat_grad, flat_grad)
            prev_loss = loss

            # the step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(self._eval_closure(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1

            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # stopping conditions
            if n_iter == max_iter:
                break
            if current_evals >= max_eval:
                break
            if opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = _wrap(d)
        state["t"] = t
        state["old_dirs"] = _wrap(old_dirs)
        state["old_stps"] = _wrap(old_stps)
        state["ro"] = ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"] = _wrap(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss
