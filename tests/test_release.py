"""What CONTRIBUTING.md's release process relies on: one version in three places, and a
changelog whose sections are `## Unreleased` and then released versions with their dates."""
import re
from pathlib import Path

import rtorchpy

ROOT = Path(__file__).resolve().parents[1]


def _r_version():
    text = (ROOT / "r-shim" / "DESCRIPTION").read_text(encoding="utf-8")
    return re.search(r"^Version:\s*(\S+)", text, re.M).group(1)


def test_the_version_is_the_same_in_python_r_and_the_build():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    py = re.search(r'^version = "([^"]+)"', text, re.M).group(1)  # ([project]'s: the first)
    assert rtorchpy.__version__ == py
    # a development version is X.Y.Z.dev0 in Python and X.Y.Z.9000 in R; a release is X.Y.Z
    m = re.fullmatch(r"(\d+\.\d+\.\d+)(\.dev0)?", py)
    assert m, f"pyproject.toml's version {py!r} is neither X.Y.Z nor X.Y.Z.dev0"
    expected_r = m.group(1) + (".9000" if m.group(2) else "")
    assert _r_version() == expected_r, (py, _r_version())


def test_changelog_sections_are_unreleased_then_dated_versions():
    lines = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Changelog"
    sections = [line[3:] for line in lines if line.startswith("## ")]
    assert sections and sections[0] == "Unreleased", sections[:1]
    for s in sections[1:]:
        assert re.fullmatch(r"\d+\.\d+\.\d+ \(\d{4}-\d{2}-\d{2}\)", s), s
