"""PEP 517 build backend of leftover: CMake builds, this packs.

pyproject.toml names it (backend-path "python"), so pip builds leftover
from this tree or from its sdist with no build requirement to fetch:

    pip install --no-build-isolation --no-index leftover-0.1.0.tar.gz

build_wheel configures a Release build without the test suite, builds it,
stages `cmake --install --strip` and packs the stage (wheel.py).
Configuration, from the environment or pip's --config-settings:
  build-dir / LEFTOVER_WHEEL_BUILD_DIR    keep the CMake build there (reused on
                                          the next build; default a temporary one)
  cmake-args / LEFTOVER_CMAKE_ARGS        more configure arguments, shell-quoted
                                          (e.g. the static dependencies' prefix)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from . import wheel

SOURCE = Path(__file__).resolve().parents[2]
# what building and installing needs: the sdist carries these and nothing else
SDIST_PATHS = ("CMakeLists.txt", "CMakePresets.json", "README.md", "pyproject.toml",
               "auditor", "cmake", "docs", "python", "rules")
# where the staged plugin goes, relative to the stage (LEFTOVER_PYTHON_DIR)
PYTHON_DIR = "python"


def version():
    m = re.search(r"project\(leftover VERSION (\S+)", (SOURCE / "CMakeLists.txt").read_text())
    return m.group(1)


def _setting(config_settings, key, env):
    return (config_settings or {}).get(key) or os.environ.get(env) or ""


def _cmake(*args):
    # CMake's output to stderr: a frontend may read stdout
    subprocess.run(["cmake", *map(str, args)], check=True, stdout=sys.stderr)


def _build_into(build, stage, config_settings):
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    extra = shlex.split(_setting(config_settings, "cmake-args", "LEFTOVER_CMAKE_ARGS"))
    # --fresh: a kept build dir configured for other libraries (static or
    # not) would keep pkg-config's cached answers; the objects are reused
    _cmake("--fresh", "-S", SOURCE, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
           "-DLEFTOVER_TESTS=OFF", "-DLEFTOVER_PYTHON_DIR=" + PYTHON_DIR, *extra)
    _cmake("--build", build, "-j", os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or os.cpu_count())
    _cmake("--install", build, "--prefix", stage, "--strip")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    kept = _setting(config_settings, "build-dir", "LEFTOVER_WHEEL_BUILD_DIR")
    with tempfile.TemporaryDirectory(prefix="leftover-wheel-") as tmp:
        build = Path(kept).resolve() if kept else Path(tmp) / "build"
        stage = Path(tmp) / "stage"
        _build_into(build, stage, config_settings)
        return wheel.write(wheel_directory, stage, version(), PYTHON_DIR)


def _sdist_files():
    """The files of SDIST_PATHS: git's list when this is a checkout (tracked, or
    new and not ignored), else every file (an unpacked sdist)."""
    if (SOURCE / ".git").exists():
        p = subprocess.run(["git", "-C", str(SOURCE), "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard", "--", *SDIST_PATHS],
                           capture_output=True, text=True, check=True)
        names = {n for n in p.stdout.split("\0") if n and (SOURCE / n).is_file()}
    else:
        names = {p.relative_to(SOURCE).as_posix() for top in SDIST_PATHS
                 for p in [SOURCE / top, *(SOURCE / top).rglob("*")] if p.is_file()}
    return sorted(n for n in names if "__pycache__" not in n)


def _tar_filter(info):
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = 0
    return info


def build_sdist(sdist_directory, config_settings=None):
    top = "leftover-%s" % version()
    name = top + ".tar.gz"
    with tempfile.TemporaryDirectory() as tmp:
        pkg_info = Path(tmp) / "PKG-INFO"
        pkg_info.write_text(wheel.metadata(version(), "any")["METADATA"])
        with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as t:
            t.add(pkg_info, "%s/PKG-INFO" % top, filter=_tar_filter)
            for n in _sdist_files():
                t.add(SOURCE / n, "%s/%s" % (top, n), recursive=False, filter=_tar_filter)
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []
