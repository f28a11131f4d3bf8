"""What CONTRIBUTING.md's release process relies on: one version in three places, and a
changelog whose sections are `## Unreleased` and then released versions with their dates
(`## [X.Y.Z] - YYYY-MM-DD`, newest first), in step with that version."""
import datetime
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


def _py_version():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^version = "([^"]+)"', text, re.M).group(1)


def _changelog_sections():
    lines = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Changelog"
    return [line[3:] for line in lines if line.startswith("## ")]


def _released():
    """(version tuple, date) of every released section, in file order."""
    out = []
    for s in _changelog_sections()[1:]:
        m = re.fullmatch(r"\[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})", s)
        assert m, f"CHANGELOG: {s!r} is neither 'Unreleased' nor '[X.Y.Z] - YYYY-MM-DD'"
        out.append((tuple(int(g) for g in m.groups()[:3]), datetime.date.fromisoformat(m.group(4))))
    return out


def test_changelog_sections_are_unreleased_then_dated_versions():
    sections = _changelog_sections()
    assert sections and sections[0] == "Unreleased", sections[:1]
    released = _released()
    # newest first: versions strictly decreasing, dates never increasing
    versions = [v for v, _ in released]
    assert versions == sorted(set(versions), reverse=True), versions
    dates = [d for _, d in released]
    assert dates == sorted(dates, reverse=True), dates


def test_changelog_agrees_with_the_version():
    """A release version has its section, the newest; a development version X.Y.Z.dev0 is
    ahead of every release (X.Y.Z itself is not released yet)."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(\.dev0)?", _py_version())
    version, dev = tuple(int(g) for g in m.groups()[:3]), m.group(4) is not None
    released = [v for v, _ in _released()]
    if dev:
        assert all(v < version for v in released), (version, released)
    else:
        assert released and released[0] == version, (version, released[:1])
