"""Indexing keys checked against libtorch's placement of advanced-index dims, shared by
test_advanced_index.py and the script that recorded the expected values (with PyTorch 2.13).

A key is written with markers so the same case builds a PyTorch key and an rtorchpy key:
("L", values) is a long tensor, ("B", values) a bool tensor; everything else is used as is."""

CASES = [
    # (shape of x, key)
    ((3, 4, 5), (0, slice(None), ("L", [1, 2]))),
    ((3, 4, 5), (("L", [1, 2]), 0)),
    ((3, 4, 5), (0, ("L", [1, 2]))),
    ((3, 4, 5), (("L", [1, 2]), slice(None), 0)),
    ((3, 4, 5), (("L", [1, 2]), 1, ("L", [0, 3]))),
    ((3, 4, 5), (("L", [1, 2]), ("L", 1), ("L", [0, 3]))),
    ((3, 4, 5), (("L", 1), slice(None), ("L", [1, 2]))),
    ((3, 4, 5), (-1, slice(None), ("L", [-1, -2]))),
    ((3, 4, 5), (("L", [1, 2]), None, ("L", [2, 0]))),
    ((3, 4, 5), (None, ("L", [1, 2]), ("L", [2, 0]))),
    ((3, 4, 5), (("L", [1, 2]), Ellipsis, ("L", [4, 0]))),
    ((3, 4, 5), (Ellipsis, 2, ("L", [4, 0]))),
    ((3, 4, 5), (slice(1, 3), 2, ("L", [4, 0, 1]))),
    ((3, 4, 5), (slice(None), ("L", [1, 2]), ("L", [4, 0]))),
    ((3, 4, 5), (slice(None), 0, ("L", [[1, 2], [3, 4]]))),
    ((3, 4, 5), (("L", [[0], [2]]), slice(None), ("L", [1, 3, 4]))),
    ((3, 4, 5), (True, ("L", [1, 2]))),
    ((3, 4, 5), (("L", [1, 2]), True)),
    ((3, 4, 5), (("L", [1, 2]), slice(None), True)),
    ((3, 4, 5), (("B", True), ("L", [1, 2]))),
    ((3, 4, 5), (("B", True),)),
    ((3, 4, 5), (False,)),
    ((3, 4, 5), (("L", 1),)),
    ((3, 4, 5), ([0, 2], 0, [1, 4])),
    ((3, 4, 5), (1, [True, False, True, False])),
    ((3, 4, 5), (0, ("B", [[True, False, True, False, True]] * 4))),
    ((3, 4, 5), (("B", [[True, False, False, True]] * 3), 3)),
    ((3, 4, 5), (("B", [True, False, True]), slice(None), ("L", [1, 2]))),
    ((3, 4, 5), (2, ("L", []), slice(1, 3))),
    ((3, 4, 5), (slice(None), ("L", []), 1)),
    ((2, 3), (("L", [1, 0, 1]),)),
    ((2, 3), (slice(None), ("L", [2, 2, 0]))),
    ((), (("B", True),)),
    ((), (("B", False),)),
    ((), (None, ("B", True))),
]

ERROR_CASES = [
    ((3, 4, 5), (("L", []), 0, ("L", [1, 2]))),
    ((3, 4, 5), (("L", [1, 2]), slice(None), False)),
    ((3, 4, 5), (("B", [[True] * 5] * 4),)),
    ((3, 4, 5), (0, slice(None), ("L", [5]))),
]


def build_key(key, long_tensor, bool_tensor):
    def one(k):
        if isinstance(k, tuple) and len(k) == 2 and k[0] == "L":
            return long_tensor(k[1])
        if isinstance(k, tuple) and len(k) == 2 and k[0] == "B":
            return bool_tensor(k[1])
        return k
    return tuple(one(k) for k in key)
