"""Data loading in Python: datasets, samplers, collation, the data loader and its workers."""
from __future__ import annotations

import os
import time

import numpy as np
import pytest

from rtorchpy import (Dataset, IterableDataset, dataloader, dataloader_make_iter, dataloader_next,
                      dataset, dataset_subset, is_dataloader, is_dataset, iterable_dataset,
                      random_split, sampler, sampler_batch, sampler_random, sampler_sequential,
                      tensor_dataset, torch_arange, torch_manual_seed, torch_ones, torch_randn,
                      torch_tensor, torch_zeros, utils_data_default_collate)
from rtorchpy import torch_bool, torch_float32, torch_float64, torch_int64


class Numbers(Dataset):
    def __init__(self, n=10, fail_at=None, pause=0.0):
        self.n, self.fail_at, self.pause = n, fail_at, pause

    def __getitem__(self, i):
        if self.pause:
            time.sleep(self.pause)
        if i == self.fail_at:
            raise ValueError("no item here")
        return {"x": torch_tensor([float(i), -float(i)]), "y": i}

    def __len__(self):
        return self.n


def ys(dl, key="y"):
    return [b[key].tolist() for b in dl]


def test_dataset_generator_and_class():
    Squares = dataset("squares", initialize=lambda self, n: setattr(self, "n", n),
                      getitem=lambda self, i: i * i, length=lambda self: self.n)
    ds = Squares(4)
    assert isinstance(ds, Dataset) and is_dataset(ds)
    assert type(ds).__name__ == "squares"
    assert len(ds) == 4 and ds[3] == 9
    Child = dataset("child", inherit=Squares,
                    getitem=lambda self, i: Squares.__getitem__(self, i) + 1)
    assert Child(2)[1] == 2
    with pytest.raises(TypeError, match="inherit must be a dataset class"):
        dataset(inherit=int)
    assert "4 items" in repr(ds)


def test_tensor_dataset_rows_and_batches():
    x, y = torch_randn(6, 3), torch_arange(0, 6)
    ds = tensor_dataset(x, y)
    assert len(ds) == 6
    assert np.array_equal(ds[2][0].numpy(), x.numpy()[2])
    b = ds.getbatch([5, 0])
    assert np.array_equal(b[0].numpy(), x.numpy()[[5, 0]]) and b[1].tolist() == [5, 0]
    with pytest.raises(ValueError, match="same size in the first dimension"):
        tensor_dataset(torch_ones(3), torch_ones(4))
    with pytest.raises(TypeError, match="must be a tensor"):
        tensor_dataset([1, 2])


def test_tensor_dataset_batches_are_one_getbatch_call():
    calls = []

    class Counted(Dataset):
        def __init__(self):
            self.t = tensor_dataset(torch_arange(0, 10))

        def __getitem__(self, i):
            raise AssertionError("__getitem__ must not be called")

        def getbatch(self, idx):
            calls.append(len(idx))
            return self.t.getbatch(idx)

        def __len__(self):
            return 10

    got = [b[0].tolist() for b in dataloader(Counted(), batch_size=4)]
    assert calls == [4, 4, 2]
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_subset_and_random_split():
    ds = Numbers(10)
    sub = dataset_subset(ds, [1, 3, 5])
    assert len(sub) == 3 and sub[1]["y"] == 3
    with pytest.raises(IndexError, match="index 10 is out of range"):
        dataset_subset(ds, [10])
    assert hasattr(dataset_subset(tensor_dataset(torch_arange(0, 5)), [0, 1]), "getbatch")
    assert not hasattr(sub, "getbatch")
    torch_manual_seed(3)
    a = random_split(ds, [7, 3])
    torch_manual_seed(3)
    b = random_split(ds, [0.7, 0.3])
    assert [len(p) for p in a] == [7, 3]
    assert sorted(a[0].indices.tolist() + a[1].indices.tolist()) == list(range(10))
    assert a[0].indices.tolist() == b[0].indices.tolist()
    with pytest.raises(ValueError, match="sum to 9, but the dataset has 10"):
        random_split(ds, [5, 4])


def test_loader_order_drop_last_and_length():
    dl = dataloader(Numbers(10), batch_size=4)
    assert is_dataloader(dl) and len(dl) == 3
    assert ys(dl) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    dl = dataloader(Numbers(10), batch_size=4, drop_last=True)
    assert len(dl) == 2 and ys(dl) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    it = dataloader_make_iter(dataloader(Numbers(3), batch_size=2))
    first = dataloader_next(it)
    assert first["x"].shape == (2, 2) and first["y"].dtype == torch_int64()
    dataloader_next(it)
    assert dataloader_next(it, completed="done") == "done"


def test_shuffle_is_reproducible_and_changes_per_pass():
    dl = dataloader(tensor_dataset(torch_arange(0, 20)), batch_size=5, shuffle=True)
    torch_manual_seed(7)
    a = sum((b[0].tolist() for b in dl), [])
    a2 = sum((b[0].tolist() for b in dl), [])
    torch_manual_seed(7)
    b = sum((b[0].tolist() for b in dl), [])
    assert a == b and sorted(a) == list(range(20)) and a != a2


def test_batch_size_none_batch_sampler_and_collate_fn():
    item = next(iter(dataloader(Numbers(3), batch_size=None)))
    assert item["x"].shape == (2,) and item["y"] == 0
    bs = sampler_batch(sampler_sequential(Numbers(5)), 2)
    assert ys(dataloader(Numbers(5), batch_sampler=bs)) == [[0, 1], [2, 3], [4]]
    with pytest.raises(ValueError, match="mutually exclusive"):
        dataloader(Numbers(5), batch_sampler=bs, shuffle=True)
    dl = dataloader(Numbers(5), batch_size=2, collate_fn=lambda items: sum(i["y"] for i in items))
    assert list(dl) == [1, 5, 4]


def test_samplers():
    ds = Numbers(5)
    assert list(sampler_sequential(ds)) == [0, 1, 2, 3, 4]
    torch_manual_seed(1)
    a = list(sampler_random(ds))
    torch_manual_seed(1)
    assert list(sampler_random(ds)) == a and sorted(a) == list(range(5))
    r = sampler_random(ds, replacement=True, num_samples=20)
    assert len(r) == 20 and all(0 <= i < 5 for i in r)
    with pytest.raises(ValueError, match="batch_size must be a whole number >= 1"):
        sampler_batch(sampler_sequential(ds), 0)
    Evens = sampler("evens", initialize=lambda self, ds: setattr(self, "n", len(ds)),
                    iter=lambda self: iter(range(0, self.n, 2)),
                    length=lambda self: (self.n + 1) // 2)
    dl = dataloader(Numbers(9), batch_size=3, sampler=Evens(Numbers(9)))
    assert len(dl) == 2 and ys(dl) == [[0, 2, 4], [6, 8]]


def test_iterable_dataset_that_ends_early():
    Counter = iterable_dataset("counter", initialize=lambda self, n: setattr(self, "n", n),
                               iter=lambda self: iter(range(self.n)))
    ds = Counter(7)
    assert isinstance(ds, IterableDataset)
    assert [b.tolist() for b in dataloader(ds, batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in dataloader(ds, batch_size=3, drop_last=True)] == \
        [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="shuffle, sampler and batch_sampler"):
        dataloader(ds, shuffle=True)
    with pytest.raises(ValueError, match="not supported for an iterable_dataset"):
        dataloader(ds, num_workers=1)


def test_default_collate_nested():
    b = utils_data_default_collate([
        {"t": torch_ones(2), "i": 1, "d": 0.5, "l": True, "s": "a", "a": np.ones(2),
         "n": [1, (torch_zeros(3), 2.0)]},
        {"t": torch_zeros(2), "i": 2, "d": 1.5, "l": False, "s": "b", "a": np.zeros(2),
         "n": [2, (torch_ones(3), 3.0)]},
    ])
    assert b["t"].shape == (2, 2) and b["i"].dtype == torch_int64()
    assert b["d"].dtype == torch_float64() and b["l"].dtype == torch_bool()
    assert b["s"] == ["a", "b"] and b["a"].shape == (2, 2)
    assert b["n"][0].tolist() == [1, 2] and b["n"][1][0].shape == (2, 3)
    assert b["n"][1][0].dtype == torch_float32()
    with pytest.raises(ValueError, match=r"item 0 of the batch has shape \[3\] and item 1 has "
                                         r"shape \[2\]"):
        utils_data_default_collate([torch_ones(3), torch_ones(2)])
    with pytest.raises(TypeError, match="cannot collate"):
        utils_data_default_collate([object()])


def test_bad_input_and_restart():
    with pytest.raises(ValueError, match="batch_size must be a whole number >= 1"):
        dataloader(Numbers(5), batch_size=0)
    with pytest.raises(TypeError, match="dataset must be a dataset"):
        dataloader([1, 2, 3])
    with pytest.raises(ValueError, match="generator"):
        dataloader(Numbers(5), generator=1)
    dl = dataloader(Numbers(6, fail_at=4), batch_size=2)
    it = iter(dl)
    assert next(it)["y"].tolist() == [0, 1]
    next(it)
    with pytest.raises(ValueError, match="dataset item 4 failed: no item here"):
        next(it)
    with pytest.raises(ValueError, match="item 4"):
        list(dl)
    assert ys(dataloader(Numbers(4, fail_at=9), batch_size=2)) == [[0, 1], [2, 3]]

    class Wrong(sampler_sequential(Numbers(1)).__class__):
        def indices(self):
            return np.array([0, 11, 2])

        def __len__(self):
            return 3

    with pytest.raises(IndexError, match="sampler gave index 11, out of range for a dataset of 5"):
        list(dataloader(Numbers(5), sampler=Wrong(Numbers(5))))

    Short = sampler(iter=lambda self: iter([0]), length=lambda self: 4)
    with pytest.raises(ValueError, match="gave 1 indices, but its length is 4"):
        list(dataloader(Numbers(5), sampler=Short(), batch_size=2))


def _children():
    """This process's children with its command name (workers are forks; others, such as the
    R CMD check tests/conftest.py runs beside the suite, are not counted)."""
    me = os.getpid()
    with open(f"/proc/{me}/comm") as f:
        my_comm = f.read()
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{p}/comm") as f:
                    comm = f.read()
            except OSError:
                continue
            if int(fields[1]) == me and comm == my_comm:
                out.append(int(p))
    return out


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to count processes")
def test_workers_same_batches_globals_errors_and_no_orphans():
    before = set(_children())  # (e.g. the NumPy 1 suite tests/conftest.py runs beside this one)

    def orphans():
        return sorted(set(_children()) - before)

    ds = Numbers(11)
    torch_manual_seed(5)
    a = ys(dataloader(ds, batch_size=3, shuffle=True, num_workers=2))
    torch_manual_seed(5)
    b = ys(dataloader(ds, batch_size=3, shuffle=True, num_workers=0))
    assert a == b

    class UsesGlobal(Dataset):
        def __getitem__(self, i):
            import __main__
            return i * __main__.scale_by + __main__.mark

        def __len__(self):
            return 4

    dl = dataloader(UsesGlobal(), batch_size=2, num_workers=2, worker_globals={"scale_by": 10},
                    worker_packages=["json"],
                    worker_init_fn=lambda wid: setattr(__import__("__main__"), "mark", 0))
    assert [t.tolist() for t in dl] == [[0, 10], [20, 30]]
    dl = dataloader(Numbers(12, fail_at=7), batch_size=2, num_workers=2)
    with pytest.raises(RuntimeError, match=r"dataloader worker \d failed: ValueError: dataset "
                                           r"item 7 failed: no item here"):
        list(dl)
    assert orphans() == []
    dl = dataloader(Numbers(4, pause=2.0), batch_size=2, num_workers=2, timeout=0.3)
    with pytest.raises(RuntimeError, match="within the timeout of 0.3 s"):
        list(dl)
    assert orphans() == []
    it = iter(dataloader(Numbers(8), batch_size=1, num_workers=2))
    next(it)
    del it
    assert orphans() == []


def test_a_failed_batch_in_this_process_is_skipped():
    it = iter(dataloader(Numbers(6, fail_at=2), batch_size=2))
    assert next(it)["y"].tolist() == [0, 1]
    with pytest.raises(ValueError, match="item 2"):
        next(it)
    assert next(it)["y"].tolist() == [4, 5]
    with pytest.raises(StopIteration):
        next(it)
