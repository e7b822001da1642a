"""`leftover explain MESSAGE`: from the ImportError a developer sees to the answer, on one screen.

The two-branch tree, with every extension module also linked against a
library exporting 100,000 functions (which itself binds 100,000 symbols
from another), so the full trace is long, as with real MLIR and LLVM.
branch-a is built, branch-b checked out and built over it, and leftover has
never scanned the tree. Python's own ImportError line, given to explain as
one argument, gets the stale module's case in at most 40 lines: the verdict
first, the unmet symbol, the build's evidence, the rule, and the commit on
branch-b that dropped the module, found from git's reflog.
"""
import shutil
import tempfile
import time
from pathlib import Path

import lotest
from test_origin import state_of
from test_twobranch import STALE, import_package, make_repo

EXPORTS = 100000


def big_libraries(d):
    """libbase.so exports b0..b99999; libbig.so exports g0..g99999, each jumping to b<i>."""
    base = ["\t.text"]
    big = ["\t.text"]
    for i in range(EXPORTS):
        base += ["\t.globl b%d" % i, "\t.type b%d,@function" % i, "b%d:" % i, "\tret"]
        big += ["\t.globl g%d" % i, "\t.type g%d,@function" % i, "g%d:" % i, "\tjmp b%d@PLT" % i]
    (d / "base.s").write_text("\n".join(base) + "\n")
    (d / "big.s").write_text("\n".join(big) + "\n")
    lotest.run(["gcc", "-shared", "-nostdlib", "-o", d / "libbase.so", d / "base.s"])
    lotest.run(["gcc", "-shared", "-nostdlib", "-o", d / "libbig.so", d / "big.s",
                "-L", d, "-lbase", "-Wl,-rpath," + str(d)])
    exports = lotest.run(["nm", "-D", "--defined-only", d / "libbig.so"]).stdout
    assert exports.count(" T g") == EXPORTS


def switched_tree(name):
    src, build = make_repo(name)
    libs = src.parent / "libs"
    libs.mkdir()
    big_libraries(libs)
    flags = "-L%s -Wl,--no-as-needed -lbig -Wl,-rpath,%s" % (libs, libs)
    # The reflog has seconds: let the checkout make-repo.sh ended with be
    # in an earlier second than the build's first file, as it is for a person.
    time.sleep(1.1)
    lotest.cmake_build(src, build, defines={"CMAKE_MODULE_LINKER_FLAGS": flags})
    assert "libbig.so" in lotest.run(["readelf", "-d", build / STALE]).stdout
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build)
    return src, build


def test_the_importerror_python_printed_is_answered_on_one_screen():
    src, build = switched_tree("explain-message")
    assert not state_of(build).exists(), "the tree must never have been scanned"
    p = import_package(build)
    assert p.returncode != 0, p.stdout
    message = [l for l in p.stderr.splitlines() if l.startswith("ImportError: ")][-1]
    assert "undefined symbol: mlirRegisterAllPasses" in message, p.stderr

    e = lotest.leftover("explain", message)
    assert e.returncode == 1, (e.stdout, e.stderr)
    lines = e.stdout.splitlines()
    assert len(lines) <= 40, "%d lines:\n%s" % (len(lines), e.stdout)
    # the right file, the verdict first
    assert lines[0] == str((build / STALE).resolve()), lines[:2]
    assert lines[1].startswith("verdict: stale: it would not load, and the current build no "
                               "longer produces it"), lines[1]
    out = e.stdout
    assert "undefined symbol mlirRegisterAllPasses" in out and "(the one in your message)" in out, out
    assert "libbig.so => %s" % (src.parent / "libs" / "libbig.so") in out, out
    assert "still built: no (evidence ninja-log" in out, out
    assert "rule mlir-register-everything: " in out, out
    # where the tree came from, and the commit that dropped the module
    a = lotest.git(src, "rev-parse", "branch-a").strip()
    b = lotest.git(src, "rev-parse", "branch-b").strip()
    assert "built at branch branch-a (%s), by git's reflog; now on branch branch-b (%s)" \
        % (a[:7], b[:7]) in out, out
    dropped = out.split('dropped by commit %s "Trim registration' % b[:7])
    assert len(dropped) == 2, out
    assert str(src.resolve() / "python" / "_mlirRegisterEverything.c") in dropped[1].split(), out
    assert "leftover clean %s" % build.resolve() in out, out
    # explain wrote nothing: a later first scan still finds the switch by itself
    assert not state_of(build).exists()

    # the same answer from the whole traceback pasted, and from the bare path
    again = lotest.leftover("explain", p.stderr)
    assert again.stdout == out, again.stdout
    path = lotest.leftover("explain", build / STALE)
    assert path.stdout.replace(" (the one in your message)", "") == \
        out.replace(" (the one in your message)", ""), path.stdout

    # --verbose keeps every binding: the 100,000 of libbig.so among them
    v = lotest.leftover("explain", "--verbose", message)
    assert v.returncode == 1
    assert len(v.stdout.splitlines()) > EXPORTS, len(v.stdout.splitlines())
    libs = src.parent / "libs"
    assert "b99999 (from %s) => %s" % (libs / "libbig.so", libs / "libbase.so") in v.stdout
    assert "b99999" not in out


def test_a_message_naming_no_file_is_a_usage_error():
    d = lotest.workdir("explain-message-none")
    e = lotest.run([lotest.LEFTOVER, "explain",
                    "ImportError: %s/gone.so: undefined symbol: foo" % d], check=False)
    assert e.returncode == 2, (e.stdout, e.stderr)
    assert "names no file that exists" in e.stderr and "gone.so" in e.stderr, e.stderr
    assert e.stdout == ""


def test_a_relative_path_in_a_dlopen_message():
    # outside any CMake tree (the suite's work dir is inside leftover's own build)
    d = Path(tempfile.mkdtemp(prefix="leftover-explain-"))
    lotest.cc(d / "sub dir" / "libneeds.so", "int gone(void); int f(void){return gone();}")
    # dlerror's text, with the path as the program gave it: relative, with a space
    e = lotest.run([lotest.LEFTOVER, "explain",
                    "dlopen failed: sub dir/libneeds.so: undefined symbol: gone"], cwd=d, check=False)
    assert e.returncode == 1, (e.stdout, e.stderr)
    assert e.stdout.splitlines()[0] == str((d / "sub dir" / "libneeds.so").resolve()), e.stdout
    assert "undefined symbol gone, needed by libneeds.so (the one in your message)" in e.stdout
    assert "the file is not in a CMake build tree" in e.stdout, e.stdout
    shutil.rmtree(d)


LIBRARY_CMAKE = """cmake_minimum_required(VERSION 3.16)
project(needs C)
find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
add_library(core SHARED core.c)
set_target_properties(core PROPERTIES SOVERSION 1 VERSION 1.0)
Python3_add_library(plug MODULE plug.c)
target_link_libraries(plug PRIVATE core)
add_library(other MODULE other.c)
"""
PLUG_C = """#include <Python.h>
int core_answer(void);
static struct PyModuleDef def = { PyModuleDef_HEAD_INIT, "plug", NULL, -1, NULL };
PyMODINIT_FUNC PyInit_plug(void) { return core_answer() == 42 ? PyModule_Create(&def) : NULL; }
"""


def test_a_message_naming_a_library_explains_the_objects_that_need_it():
    """The most common soname error names the library, not the module: the
    objects of the build tree that need it (DT_NEEDED) are the answer."""
    d = lotest.workdir("explain-message-library")
    src, build = d / "src", d / "build"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(LIBRARY_CMAKE)
    (src / "core.c").write_text("int core_answer(void) { return 42; }\n")
    (src / "plug.c").write_text(PLUG_C)
    (src / "other.c").write_text("int other(void) { return 1; }\n")
    lotest.cmake_build(src, build, defines={"Python3_EXECUTABLE": lotest.PYTHON})
    [plug] = build.glob("plug*.so")
    ok = lotest.run([lotest.PYTHON, "-c", "import plug"], cwd=build, check=False)
    assert ok.returncode == 0, ok
    for f in build.glob("libcore.so*"):
        f.unlink()
    p = lotest.run([lotest.PYTHON, "-c", "import plug"], cwd=build, check=False)
    message = p.stderr.splitlines()[-1]
    assert message == "ImportError: libcore.so.1: cannot open shared object file: " \
        "No such file or directory", p.stderr

    e = lotest.leftover("explain", message, build)
    assert e.returncode == 1, (e.stdout, e.stderr)
    lines = e.stdout.splitlines()
    assert lines[0] == "libcore.so.1 is needed by 1 object under %s" % build.resolve(), lines
    assert lines[2] == str(plug.resolve()), lines
    assert lines[3].startswith("verdict: broken: it would not load, and the current build "
                               "still produces it"), lines
    assert "library libcore.so.1 not found, needed by %s (the one in your message)" \
        % plug.name in e.stdout, e.stdout
    assert "libother.so" not in e.stdout, e.stdout

    # without a tree: the current directory's, from anywhere inside it
    here = lotest.run([lotest.LEFTOVER, "explain", message], cwd=build / "CMakeFiles",
                      check=False)
    assert (here.returncode, here.stdout) == (1, e.stdout), here

    # a library that nothing in the tree needs: said so, with the library named
    none = lotest.leftover("explain", message.replace("libcore.so.1", "libgone.so.3"), build)
    assert none.returncode == 2 and none.stdout == "", none
    assert "no object under '%s' needs libgone.so.3" % build.resolve() in none.stderr, none.stderr


if __name__ == "__main__":
    lotest.main(globals())
