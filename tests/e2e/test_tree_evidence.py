"""Evidence from the tree and git, where no build system records (issue 16).

Two shapes that no CMakeCache.txt or .ninja_log speaks for, each its own
evidence kind, each built on one git branch and rebuilt on the next. No
build record says so: what they find is suspected ("orphan": "suspected",
"possibly stale"), never stale (issue 43):

- superseded-library, the LinuxCNC shape: a hand-written Makefile bumps
  libfoo's soname from .so.0 to .so.1; its rule for the development link
  lib/libfoo.so has no prerequisite, so make keeps the link pointing at
  libfoo.so.0, the module links through it against the old library and
  fails to load (undefined foo_new). The old library is found superseded,
  and the broken module's finding names it as the cause.
- source-deleted, the setuptools in-place shape (build_ext --inplace):
  pkg/_ext.c is deleted on the second branch, and its module, built
  before the checkout, stays beside the package's .py files.

Negative controls: the same trees built fresh on the second branch have
nothing superseded and no such finding; with the link pointing at the new
library the old one is no longer judged.
"""
import sysconfig
import time

import lotest

MAKEFILE = """V = {v}
all: lib/libfoo.so.$(V) lib/libfoo.so mod.so
lib/libfoo.so.$(V): foo.c
\tmkdir -p lib
\tgcc -shared -fPIC -Wl,-soname,libfoo.so.$(V) -o $@ foo.c
lib/libfoo.so:
\tln -sf libfoo.so.$(V) $@
mod.so: mod.c lib/libfoo.so.$(V)
\tgcc -shared -fPIC -o $@ mod.c -Llib -lfoo -Wl,-rpath,'$$ORIGIN/lib'
"""


def commit_all(repo, message):
    lotest.git(repo, "add", "-A")
    lotest.git(repo, "commit", "-q", "-m", message)


def soname_repo(d):
    """branch-a: libfoo.so.0 with foo; branch-b: libfoo.so.1 adds foo_new, which mod uses."""
    d.mkdir(parents=True)
    (d / ".gitignore").write_text("lib/\n*.so\n")
    (d / "Makefile").write_text(MAKEFILE.format(v=0))
    (d / "foo.c").write_text("int foo(void) { return 1; }\n")
    (d / "mod.c").write_text("int foo(void);\nint mod(void) { return foo(); }\n")
    lotest.git(d, "init", "-q", "-b", "branch-a")
    commit_all(d, "libfoo.so.0")
    lotest.git(d, "checkout", "-q", "-b", "branch-b")
    (d / "Makefile").write_text(MAKEFILE.format(v=1))
    (d / "foo.c").write_text("int foo(void) { return 1; }\nint foo_new(void) { return 2; }\n")
    (d / "mod.c").write_text("int foo(void), foo_new(void);\n"
                             "int mod(void) { return foo() + foo_new(); }\n")
    commit_all(d, "bump the soname: libfoo.so.1, with foo_new")
    return d


def reasons(f, kind):
    return [r for r in f["reasons"] if r["kind"] == kind]


def test_superseded_library_is_found_and_named_by_the_broken_module():
    d = soname_repo(lotest.workdir("tree-soname") / "tree")
    for branch in ("branch-a", "branch-b"):
        lotest.git(d, "checkout", "-q", branch)
        lotest.run(["make", "-C", d])
    assert (d / "lib/libfoo.so").resolve().name == "libfoo.so.0"  # the stale link
    # the real loader: the module does not load
    assert "foo_new" in lotest.dlopen([d / "mod.so"])[0], lotest.dlopen([d / "mod.so"])
    r = lotest.scan(d)
    assert r.rc == 1, r  # the broken module; the suspected library is no finding
    old = r.file("lib/libfoo.so.0")
    assert old["orphan"] == "suspected" and old["verdict"] == "suspected", old
    assert [x["evidence"] for x in reasons(old, "suspected")] == ["superseded-library"], old
    assert "libfoo.so.1" in reasons(old, "suspected")[0]["detail"], old
    assert not reasons(old, "orphan") and lotest.stale_paths(r) == [], r
    mod = r.file("mod.so")
    assert mod["verdict"] == "broken" and mod["loads"] is False, mod
    cause = reasons(mod, "superseded-library")
    assert len(cause) == 1 and cause[0]["library"] == "libfoo.so.0", mod
    assert cause[0]["object"].endswith("lib/libfoo.so.0"), cause
    assert r.file("lib/libfoo.so.1")["orphan"] is None, r.file("lib/libfoo.so.1")

    # the link repointed at the new library: the old one may be wanted, not judged
    (d / "lib/libfoo.so").unlink()
    (d / "lib/libfoo.so").symlink_to("libfoo.so.1")
    r = lotest.scan(d)
    assert r.file("lib/libfoo.so.0")["orphan"] is None, r.file("lib/libfoo.so.0")


def test_nothing_superseded_in_a_fresh_build():
    d = soname_repo(lotest.workdir("tree-soname-fresh") / "tree")
    lotest.run(["make", "-C", d])  # branch-b only
    assert lotest.dlopen([d / "mod.so"]) == ["ok"]
    r = lotest.scan(d)
    assert r.rc == 0, r
    for p, f in r.files.items():
        assert f["orphan"] in (None, False) and not reasons(f, "superseded-library"), (p, f)


SETUP = """from setuptools import setup, Extension
setup(name="pkg", packages=["pkg"], ext_modules=[{exts}])
"""
EXT_C = """#include <Python.h>
static struct PyModuleDef def = {{ PyModuleDef_HEAD_INIT, "{name}", NULL, -1, NULL }};
PyMODINIT_FUNC PyInit_{name}(void) {{ return PyModule_Create(&def); }}
"""


def inplace_repo(d):
    """branch-a: extensions pkg._ext and pkg._keep; branch-b deletes pkg/_ext.c."""
    (d / "pkg").mkdir(parents=True)
    (d / ".gitignore").write_text("build/\n*.so\n")
    (d / "pkg/__init__.py").write_text("")
    (d / "pkg/util.py").write_text("X = 1\n")
    for name in ("_ext", "_keep"):
        (d / "pkg" / (name + ".c")).write_text(EXT_C.format(name=name))
    ext = 'Extension("pkg.{0}", ["pkg/{0}.c"])'
    (d / "setup.py").write_text(SETUP.format(exts=", ".join(ext.format(n) for n in ("_ext", "_keep"))))
    lotest.git(d, "init", "-q", "-b", "branch-a")
    commit_all(d, "two extensions")
    lotest.git(d, "checkout", "-q", "-b", "branch-b")
    (d / "pkg/_ext.c").unlink()
    (d / "setup.py").write_text(SETUP.format(exts=ext.format("_keep")))
    commit_all(d, "drop the _ext extension")
    return d


def build_inplace(d):
    lotest.run([lotest.PYTHON, "setup.py", "-q", "build_ext", "--inplace"], cwd=d)


def test_inplace_extension_whose_source_git_deleted():
    d = inplace_repo(lotest.workdir("tree-inplace") / "tree")
    lotest.git(d, "checkout", "-q", "branch-a")
    build_inplace(d)
    time.sleep(1.1)  # the reflog has seconds: the checkout removing _ext.c is a later one
    lotest.git(d, "checkout", "-q", "branch-b")
    build_inplace(d)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    r = lotest.scan(d)
    assert r.rc == 0, r  # inference alone is no finding
    gone = r.file("pkg/_ext" + suffix)
    assert gone["orphan"] == "suspected" and gone["verdict"] == "suspected", gone
    assert [x["evidence"] for x in reasons(gone, "suspected")] == ["source-deleted"], gone
    assert "_ext.c" in reasons(gone, "suspected")[0]["detail"], gone
    keep = r.file("pkg/_keep" + suffix)
    assert keep["orphan"] is None and keep["verdict"] == "ok", keep


def test_nothing_deleted_in_a_fresh_inplace_build():
    d = inplace_repo(lotest.workdir("tree-inplace-fresh") / "tree")
    build_inplace(d)  # branch-b only
    r = lotest.scan(d)
    assert r.rc == 0, r
    for p, f in r.files.items():
        assert f["orphan"] in (None, False), (p, f)


if __name__ == "__main__":
    lotest.main(globals())
