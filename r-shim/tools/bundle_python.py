"""Pack the Python package ``rtorchpy/`` into the R package (``inst/python/rtorchpy.tar.xz``).

The R package carries the Python code it drives, so installing its tarball plus any Python 3.9+
with NumPy is all an R user needs. It carries it as one xz-compressed tar archive (~0.35 MB)
rather than as ~190 files (1.9 MB installed, a quarter of it file-system block rounding): that
keeps the installed package under CRAN's 5 MB. On first use the R package unpacks the archive
into a versioned cache directory (``R/python-cache.R``), where Python can keep its bytecode.

The archive is a build product (gitignored): ``make r`` and ``make r-tarball`` run this script
before ``R CMD INSTALL`` / ``R CMD build``.

    python r-shim/tools/bundle_python.py             # refresh r-shim/inst/python
    python r-shim/tools/bundle_python.py --dest DIR  # write DIR/rtorchpy.tar.xz instead
    python r-shim/tools/bundle_python.py --check DIR # exit 1 when DIR's archive differs

Only ``*.py`` files go in (no caches), under ``rtorchpy/``. The archive is reproducible (sorted
members, fixed times and owners), and an unchanged one is not rewritten, so make's timestamps
stay meaningful. A copy left unpacked in DIR by older versions of this script is removed. The
Python package's version must be the R package's (R's ``x.y.z.9000`` is Python's
``x.y.z.dev0``): the R side refuses a copy of another version.
"""
from __future__ import annotations

import argparse
import io
import re
import shutil
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "rtorchpy"
DESCRIPTION = ROOT / "r-shim" / "DESCRIPTION"
DEFAULT_DEST = ROOT / "r-shim" / "inst" / "python"
ARCHIVE = "rtorchpy.tar.xz"


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


def pack(files: dict[str, bytes]) -> bytes:
    """The archive's bytes: ``rtorchpy/<name>`` for each file, the same bytes for the same input."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:xz", preset=9, format=tarfile.USTAR_FORMAT) as tar:
        for name in sorted(files):
            info = tarfile.TarInfo("rtorchpy/" + name)
            info.size, info.mode, info.mtime = len(files[name]), 0o644, 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(files[name]))
    return out.getvalue()


def unpack(path: Path) -> dict[str, bytes]:
    """The files an archive made by ``pack`` holds, by name under ``rtorchpy/``."""
    out = {}
    with tarfile.open(path, mode="r:xz") as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.startswith("rtorchpy/"):
                out[member.name[len("rtorchpy/"):]] = tar.extractfile(member).read()
    return out


def differences(dest: Path) -> list[str]:
    """What differs between ``rtorchpy/`` and ``dest/rtorchpy.tar.xz`` (empty when current)."""
    want = source_files()
    archive = dest / ARCHIVE
    if not archive.is_file():
        return [f"missing: {ARCHIVE}"]
    have = unpack(archive)
    out = [f"missing: {n}" for n in want if n not in have]
    out += [f"stale: {n}" for n in want if n in have and have[n] != want[n]]
    out += [f"extra: {n}" for n in have if n not in want]
    if (dest / "rtorchpy").exists():
        out.append("extra: an unpacked rtorchpy/ beside the archive")
    return out


def bundle(dest: Path) -> int:
    """Make ``dest/rtorchpy.tar.xz`` the packed source; returns 1 if it was (re)written, else 0."""
    data = pack(source_files())
    archive = dest / ARCHIVE
    # an unpacked copy (what this script made before the archive) would be installed too
    if (dest / "rtorchpy").is_dir():
        shutil.rmtree(dest / "rtorchpy")
    if archive.is_file() and archive.read_bytes() == data:
        return 0
    dest.mkdir(parents=True, exist_ok=True)
    tmp = archive.with_name(ARCHIVE + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(archive)
    return 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dest", type=Path, default=DEFAULT_DEST,
                    help=f"directory that receives {ARCHIVE} (default: r-shim/inst/python)")
    ap.add_argument("--check", type=Path, metavar="DIR",
                    help=f"only compare DIR/{ARCHIVE} with the source; exit 1 if it differs")
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
            print(f"{args.check}/{ARCHIVE} does not hold rtorchpy/ as it is (run `make r`):\n  "
                  + "\n  ".join(diff), file=sys.stderr)
            return 1
        return 0
    n = bundle(args.dest)
    print(f"bundled rtorchpy {py_version} into {args.dest / ARCHIVE} "
          f"({'updated' if n else 'unchanged'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
