"""The Python that judges a module is the one its build recorded, not PATH's
(issue 43, point 7: CMake and setuptools).

On a pyenv machine `python3` on PATH is a shim running whatever version pyenv
selects, seldom the one a tree was built with. CMake records its interpreter
(Python3_EXECUTABLE in CMakeCache.txt); setuptools records only the version,
in the names of its build directories (build/lib.<platform>-cpython-311,
build/temp.<platform>-cpython-311), for a build/ tree and for an in-place
build_ext alike, and the system's interpreter of that version judges. Both
trees here are built by Debian's /usr/bin/python3 and scanned with a
pyenv-like shim first on PATH, running another interpreter. A module that
no interpreter found can import (built for another CPython) is skipped, and
the text report's summary says how many were not judged and why, instead of
a blank exit 0.
"""
import os

import lotest

SYSTEM = "/usr/bin/python3"
INFO = lotest.run([SYSTEM, "-c", "import sysconfig; print(sysconfig.get_paths()['include']); "
                   "print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.split("\n")
INCLUDE, SUFFIX = INFO[0], INFO[1]
OTHER_VERSION = SUFFIX.replace("cpython-3", "cpython-39", 1)  # .cpython-3911-...: none has it
MODULE_C = """#include <Python.h>
static struct PyModuleDef def = { PyModuleDef_HEAD_INIT, "%s", NULL, -1, NULL };
PyMODINIT_FUNC PyInit_%s(void) { return PyModule_Create(&def); }
"""
CMAKE = """cmake_minimum_required(VERSION 3.16)
project(recorded C)
find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
Python3_add_library(fast MODULE fast.c)
"""
SETUP = """from setuptools import setup, Extension
setup(name="sp", packages=["sp"], ext_modules=[Extension("sp._fast", ["sp/fastmodule.c"])])
"""


def pyenv_like(d):
    """A directory for PATH whose python3 is a bash shim, as pyenv's, that
    runs another interpreter than the builds': here one in d/other, which
    reports itself there (sys.executable)."""
    other = d / "other" / "bin"
    other.mkdir(parents=True)
    (other / "python3").symlink_to(os.path.realpath(SYSTEM))
    shims = d / "shims"
    shims.mkdir()
    shim = shims / "python3"
    shim.write_text('#!/usr/bin/env bash\nexec "%s/python3" "$@"\n' % other)
    shim.chmod(0o755)
    return {"PATH": "%s:%s" % (shims, os.environ["PATH"])}, str(d / "other")


def modules(r):
    return [f for f in r.doc["files"] if f["kind"] == "python-extension"]


def test_cmake_and_setuptools_trees_are_judged_by_their_own_python():
    d = lotest.workdir("python-records")
    env, other = pyenv_like(d)
    assert lotest.run(["python3", "-c", "import sys; print(sys.executable)"],
                      env=env).stdout.startswith(other)

    src, build = d / "cmake-src", d / "cmake-build"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(CMAKE)
    (src / "fast.c").write_text(MODULE_C % ("fast", "fast"))
    lotest.cmake_build(src, build, defines={"Python3_EXECUTABLE": SYSTEM})

    sp = d / "setuptools"
    (sp / "sp").mkdir(parents=True)
    (sp / "setup.py").write_text(SETUP)
    (sp / "sp" / "__init__.py").write_text("")
    (sp / "sp" / "fastmodule.c").write_text(MODULE_C % ("_fast", "_fast"))
    lotest.run([SYSTEM, "setup.py", "-q", "build_ext", "--inplace"], cwd=sp)
    lotest.run([SYSTEM, "setup.py", "-q", "build"], cwd=sp)
    assert list(sp.glob("build/temp.*")) and list(sp.glob("sp/_fast*.so"))

    for tree, count in ((build, 1), (sp, 2)):  # in place, and build/lib.*
        r = lotest.scan(tree, env=env)
        assert r.rc == 0, r
        found = modules(r)
        assert len(found) == count, r.doc
        for f in found:
            assert f["verdict"] == "ok", f
            assert not f["host"].startswith(other), f
            assert os.path.realpath(f["host"]) == os.path.realpath(SYSTEM), f
        # the real interpreter of the records imports them
        assert lotest.run([SYSTEM, "-c", "import sp._fast" if tree == sp else "import fast"],
                          cwd=tree if tree == sp else build).returncode == 0

    # a module built for a CPython that is not here: no interpreter judges it
    lotest.cc(sp / "sp" / ("_old" + OTHER_VERSION), MODULE_C % ("_old", "_old"), "-I" + INCLUDE)
    r = lotest.scan(sp, env=env)
    assert r.rc == 0, r
    skipped = [f for f in modules(r) if f["verdict"] == "skipped"]
    assert [f["path"] for f in skipped] == ["sp/_old" + OTHER_VERSION], r.doc
    t = lotest.leftover("scan", sp, env=env)
    assert t.returncode == 0, t
    summary = t.stdout.splitlines()[-1]
    assert "1 skipped; 1 Python module not judged: %s never imports it " \
        "(--python names the interpreter it was built for)" % os.path.realpath(SYSTEM) in summary, t.stdout


if __name__ == "__main__":
    lotest.main(globals())
