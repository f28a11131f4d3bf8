"""Copy the Python package ``rtorchpy/`` into the R package (``r-shim/inst/python/rtorchpy``).

The R package carries the Python code it drives, so installing its tarball plus any Python 3.9+
with NumPy is all an R user needs. The copy is a build product (gitignored): ``make r`` and
``make r-tarball`` run this script before ``R CMD INSTALL`` / ``R CMD build``.

    python r-shim/tools/bundle_python.py             # refresh r-shim/inst/python
    python r-shim/tools/bundle_python.py --dest DIR  # copy into DIR/rtorchpy instead
    python r-shim/tools/bundle_python.py --check DIR # exit 1 when DIR/rtorchpy differs

Only ``*.py`` files are copied (no caches); files that no longer exist in the source are removed,
and unchanged files are not rewritten (so make's timestamps stay meaningful). The Python
package's version must be the R package's (R's ``x.y.z.9000`` is Python's ``x.y.z.dev0``): the
R side refuses a copy of another version.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "rtorchpy"
DESCRIPTION = ROOT / "r-shim" / "DESCRIPTION"
DEFAULT_DEST = ROOT / "r-shim" / "inst" / "python"


def python_version_for_r(r_version: str) -> str:
    """The Python version that goes with an R package version (development suffixes differ)."""
    return re.sub(r"\.9000$", ".dev0", r_version)


def versions() -> tuple[str, str]:
    """(the R package's version, the Python package's ``__version__``)."""
    r = re.search(r"^Version:\s*(\S+)", DESCRIPTION.read_text(), re.M).group(1)
    py = re.search(r'^__version__\s*=\s*"([^"]+)"', (SOURCE / "__init__.py").read_text(),
                   re.M).group(1)
    return r, py


def source_files() -> dict[str, bytes]:
    return {p.relative_to(SOURCE).as_posix(): p.read_bytes()
            for p in sorted(SOURCE.rglob("*.py")) if "__pycache__" not in p.parts}


def differences(dest: Path) -> list[str]:
    """What differs between ``rtorchpy/`` and ``dest/rtorchpy`` (empty when the copy is current)."""
    want = source_files()
    target = dest / "rtorchpy"
    have = {p.relative_to(target).as_posix(): p.read_bytes()
            for p in target.rglob("*.py")
            if "__pycache__" not in p.parts} if target.is_dir() else {}
    out = [f"missing: {n}" for n in want if n not in have]
    out += [f"stale: {n}" for n in want if n in have and have[n] != want[n]]
    out += [f"extra: {n}" for n in have if n not in want]
    return out


def bundle(dest: Path) -> int:
    """Make ``dest/rtorchpy`` a copy of the source; returns the number of files written."""
    want = source_files()
    target = dest / "rtorchpy"
    written = 0
    for name, data in want.items():
        path = target / name
        if path.is_file() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written += 1
    if target.is_dir():
        for path in sorted(target.rglob("*"), reverse=True):
            rel = path.relative_to(target).as_posix()
            if path.is_file() and (rel not in want or "__pycache__" in path.parts):
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dest", type=Path, default=DEFAULT_DEST,
                    help="directory that receives rtorchpy/ (default: r-shim/inst/python)")
    ap.add_argument("--check", type=Path, metavar="DIR",
                    help="only compare DIR/rtorchpy with the source; exit 1 if it differs")
    args = ap.parse_args(argv)
    r_version, py_version = versions()
    if python_version_for_r(r_version) != py_version:
        print(f"version mismatch: r-shim/DESCRIPTION says {r_version} (Python "
              f"{python_version_for_r(r_version)}), rtorchpy/__init__.py says {py_version}",
              file=sys.stderr)
        return 1
    if args.check is not None:
        diff = differences(args.check)
        if diff:
            print(f"{args.check}/rtorchpy is not a copy of rtorchpy/ (run `make r`):\n  "
                  + "\n  ".join(diff), file=sys.stderr)
            return 1
        return 0
    n = bundle(args.dest)
    print(f"bundled rtorchpy {py_version} into {args.dest} ({n} file(s) updated)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
