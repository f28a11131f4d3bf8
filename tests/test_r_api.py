"""The R package's C code calls R's public API only: none of the entry points current R's
``R CMD check`` reports as non-API (listed in r-shim/tools/r-nonapi-symbols.txt) is among the
symbols the built library takes from R, whatever R is installed here."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "r-shim" / "tools" / "r-nonapi-symbols.txt"
LIB = ROOT / ".rlib" / "rtorchpy" / "libs" / "rtorchpy.so"


def non_api():
    return {ln.strip() for ln in LIST.read_text().splitlines()
            if ln.strip() and not ln.startswith("#")}


def test_the_list_is_r_checks_list():
    names = non_api()
    assert len(names) > 90 and {"BODY", "CLOENV", "LEVELS", "SET_BODY"} <= names


def test_the_built_library_calls_no_non_api_entry_point():
    if not LIB.exists():
        pytest.skip("the R package is not built (make r)")
    if shutil.which("nm") is None:
        pytest.skip("nm is not installed")
    out = subprocess.run(["nm", "-D", "--undefined-only", str(LIB)], capture_output=True,
                         text=True, check=True).stdout
    used = {ln.split()[-1].split("@")[0] for ln in out.splitlines() if ln.strip()}
    assert used, "nm listed no symbols"
    assert "Rf_eval" in used  # (the listing is what the library takes from R)
    assert not (used & non_api()), f"non-API entry points called: {sorted(used & non_api())}"


def test_no_private_structure_of_r6_or_reticulate_is_read():
    """R and C sources use what R6 and reticulate publish: no `:::` into them, and no read of
    the enclosing environment R6 keeps in each object (a module's private environment comes
    from its own method, see .nn_private). The name may appear only in the list of bindings a
    saved module skips."""
    offenders = []
    for path in sorted((ROOT / "r-shim" / "R").glob("*.R")) + sorted(
            (ROOT / "r-shim" / "src").glob("*.[ch]")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0] if path.suffix == ".R" else line
            if "reticulate:::" in code or "R6:::" in code:
                offenders.append(f"{path.name}:{n}: {line.strip()}")
            if ".__enclos_env__" in code and ".module_bookkeeping <-" not in code:
                offenders.append(f"{path.name}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_the_version_branches_name_no_non_api_entry_point():
    """rapi.h chooses R's API by version; the branch for R >= 4.5 is not compiled here, so its
    text is checked: no listed name appears in the header at all."""
    text = (ROOT / "r-shim" / "src" / "rapi.h").read_text()
    code = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    named = set(re.findall(r"\b\w+\b", code)) & non_api()
    assert not named, f"rapi.h names non-API entry points: {sorted(named)}"
