"""`leftover explain --verbose FILE`: the loader's work for one file, step by step.

On the two-branch tree (branch-a built, branch-b rebuilt over it): the
stale module's explanation names where libMLIRCAPI.so was found and how
(RUNPATH $ORIGIN), which object provides each symbol, the interpreter for
the Py* ones, and the one symbol nobody provides; the module that is fine
says it would load. A missing library lists every path tried.
"""
import os
import re

import lotest
from test_twobranch import PKG, SOABI, STALE, make_repo


def reused_tree():
    src, build = make_repo("explain")
    lotest.cmake_build(src, build)
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build)
    return build


BUILD = None


def build():
    global BUILD
    if BUILD is None:
        BUILD = reused_tree()
    return BUILD


def test_stale_module_explained():
    b = build()
    p = lotest.leftover("explain", "--verbose", b / STALE)
    assert p.returncode == 1, (p.stdout, p.stderr)
    out = p.stdout
    capi = str((b / PKG / "libMLIRCAPI.so").resolve())
    # The interpreter recorded in the tree's CMakeCache.txt is the host.
    assert "kind: python-extension" in out, out
    assert "host: " + lotest.PYTHON in out, out
    assert re.search(r"libMLIRCAPI\.so => %s \(RUNPATH \$ORIGIN\)" % re.escape(capi), out), out
    assert re.search(r"mlirRegisterAllPasses => NOT FOUND", out), out
    # Py* symbols bind to the interpreter or its libpython, not to the tree.
    py = [l for l in out.splitlines() if re.match(r"\s+Py\w+ => ", l)]
    assert py and all("python" in l.split("=>")[1] for l in py), py
    assert "result: would not load" in out, out


def test_module_that_loads():
    b = build()
    p = lotest.leftover("explain", b / PKG / ("_mlir" + SOABI))
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert "NOT FOUND" not in p.stdout, p.stdout
    assert "result: would load" in p.stdout, p.stdout


def test_missing_library_lists_paths_tried():
    d = lotest.workdir("explain-missing")
    lotest.cc(d / "lib" / "libgone.so", "int gone(void){return 1;}")
    lotest.cc(d / "libuser.so", "int gone(void); int user(void){return gone();}",
              "-L", d / "lib", "-lgone", "-Wl,-rpath,$ORIGIN/lib")
    (d / "lib" / "libgone.so").unlink()
    p = lotest.leftover("explain", "--verbose", d / "libuser.so")
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "libgone.so => not found" in p.stdout, p.stdout
    assert "tried %s/lib/libgone.so" % d.resolve() in p.stdout, p.stdout
    assert "tried /usr/lib/x86_64-linux-gnu/libgone.so" in p.stdout, p.stdout


def test_scan_of_a_parent_dir_takes_each_trees_interpreter():
    """The CMakeCache.txt above each module names its interpreter, even when
    the scan starts higher up and python3 on PATH is something else."""
    b = build()
    shim = lotest.workdir("explain-shim")
    (shim / "python3").write_text("#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n")
    os.chmod(shim / "python3", 0o755)
    p = lotest.run([lotest.LEFTOVER, "scan", "--format", "json", b.parent], check=False,
                   env={"PATH": "%s:%s" % (shim, os.environ["PATH"])})
    r = lotest.Scan(p)
    assert r.rc == 1, r
    f = r.file("build/" + STALE)
    assert f["host"] == lotest.PYTHON, f
    assert f["verdict"] in ("broken", "stale"), f


if __name__ == "__main__":
    lotest.main(globals())
