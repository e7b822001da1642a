"""Evidence levels (issue 43, points 2 and 3): stale by a build record,
suspected by inference, unknown.

Records older than the sources they describe: a CMake project on two
branches whose CMakeLists.txt differ (branch-a builds liba, branch-b libb
instead), built at branch-a, then at branch-b, then checked out at branch-a
again without a build. The tree's records are branch-b's; the build would
rerun CMake before building anything, and then make liba again: nothing
may be called stale until it has run, and the scan says why. Once built,
branch-b's library is stale, held against the build itself. A commit
alone, with the build description unchanged, withholds nothing: build,
commit, scan is the common case. The same with Ninja and Unix Makefiles.

Inference is not evidence: a setuptools build in place, whose sources are
renamed on branch-b (sp/_fast.c -> sp/fastmodule.c, the modules built in a
loop, Extension(f"sp._{m}", [f"sp/{m}module.c"])), both modules rebuilt
after the checkout: written after their old sources left the work tree,
they are neither stale nor suspected, and `clean` leaves `import sp`
working. A module whose source branch-b deleted, not rebuilt, is
suspected ("possibly stale"): listed, no finding, moved only by
`clean --suspected`.
"""
import sysconfig
import time

import lotest
# the in-place shape and its helpers are the tree evidence's (issue 16)
from test_tree_evidence import EXT_C, build_inplace, commit_all

LIB = "add_library({0} SHARED {0}.c)\n"
CMAKELISTS = "cmake_minimum_required(VERSION 3.16)\nproject(levels C)\n"


def lib_repo(d):
    """branch-a builds liba, branch-b libb instead (and liba no more)."""
    d.mkdir(parents=True)
    (d / ".gitignore").write_text("build/\n")
    for name in ("a", "b"):
        (d / (name + ".c")).write_text("int %s(void) { return 1; }\n" % name)
    (d / "CMakeLists.txt").write_text(CMAKELISTS + LIB.format("a"))
    lotest.git(d, "init", "-q", "-b", "branch-a")
    commit_all(d, "liba")
    lotest.git(d, "checkout", "-q", "-b", "branch-b")
    (d / "CMakeLists.txt").write_text(CMAKELISTS + LIB.format("b"))
    commit_all(d, "libb instead of liba")
    lotest.git(d, "checkout", "-q", "branch-a")
    return d


def withheld_notes(r):
    return [n for n in r.doc["notes"]
            if "build description changed" in n and "staleness withheld" in n]


def check_checkout_not_rebuilt(name, generator):
    src = lib_repo(lotest.workdir(name) / "src")
    build = src / "build"
    rebuild = [lotest.CMAKE, "--build", build, "-j2"]
    lotest.cmake_build(src, build, generator)
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.run(rebuild)
    lotest.git(src, "checkout", "-q", "branch-a")  # not built

    r = lotest.scan(build)
    assert lotest.stale_paths(r) == [], r
    assert r.rc == 0, r
    notes = withheld_notes(r)
    assert len(notes) == 1 and "CMakeLists.txt" in notes[0], r.doc["notes"]
    liba = r.file("liba.so")  # branch-a's next build makes it again
    assert liba["orphan"] is None and liba["verdict"] == "ok", liba
    assert [x["withheld"] for x in r.doc["build_trees"]] == [True], r.doc["build_trees"]
    t = lotest.leftover("scan", build)  # nothing stale, and not in silence
    assert t.returncode == 0 and "staleness withheld; build first" in t.stdout, t
    assert "staleness withheld: its records are older" in t.stdout, t.stdout
    assert "staleness from" not in t.stdout, t.stdout

    lotest.run(rebuild)
    r = lotest.scan(build)
    assert not withheld_notes(r), r.doc["notes"]
    assert [x["withheld"] for x in r.doc["build_trees"]] == [False], r.doc["build_trees"]
    assert r.rc == 1 and lotest.stale_paths(r) == ["libb.so"], r
    assert r.file("liba.so")["orphan"] is False, r.file("liba.so")

    # build, commit, scan: a commit changes no file of the build description
    (src / "NEWS").write_text("libb was liba\n")
    commit_all(src, "news")
    r = lotest.scan(build)
    assert not withheld_notes(r), r.doc["notes"]
    assert lotest.stale_paths(r) == ["libb.so"], r
    lotest.assert_stale_not_rebuilt(r, build, rebuild)


def test_ninja_checkout_not_rebuilt():
    check_checkout_not_rebuilt("ninja", "Ninja")


def test_makefiles_checkout_not_rebuilt():
    check_checkout_not_rebuilt("make", "Unix Makefiles")


SETUP_A = """from setuptools import setup, Extension
setup(name="sp", packages=["sp"],
      ext_modules=[Extension("sp._fast", ["sp/_fast.c"]), Extension("sp._slow", ["sp/_slow.c"]),
                   Extension("sp._gone", ["sp/_gone.c"])])
"""
SETUP_B = """from setuptools import setup, Extension
setup(name="sp", packages=["sp"],
      ext_modules=[Extension(f"sp._{m}", [f"sp/{m}module.c"]) for m in ("fast", "slow")])
"""
INIT = "from . import _fast, _slow\n"


def inplace_repo(d):
    """branch-a: sp._fast, sp._slow, sp._gone from sp/_NAME.c; branch-b renames
    the first two's sources to sp/NAMEmodule.c and deletes sp/_gone.c."""
    (d / "sp").mkdir(parents=True)
    (d / ".gitignore").write_text("build/\n*.so\n")
    (d / "sp/__init__.py").write_text(INIT)
    for m in ("fast", "slow", "gone"):
        (d / "sp" / ("_%s.c" % m)).write_text(EXT_C.format(name="_" + m))
    (d / "setup.py").write_text(SETUP_A)
    lotest.git(d, "init", "-q", "-b", "branch-a")
    commit_all(d, "three extensions")
    lotest.git(d, "checkout", "-q", "-b", "branch-b")
    for m in ("fast", "slow"):
        lotest.git(d, "mv", "sp/_%s.c" % m, "sp/%smodule.c" % m)
    lotest.git(d, "rm", "-q", "sp/_gone.c")
    (d / "setup.py").write_text(SETUP_B)
    commit_all(d, "sources named NAMEmodule.c, built in a loop; _gone dropped")
    lotest.git(d, "checkout", "-q", "branch-a")
    return d


def import_sp(d):
    return lotest.run([lotest.PYTHON, "-c", "import sp, sp._fast, sp._slow"], cwd=d, check=False)


def test_inplace_renamed_sources_live_and_deleted_suspected():
    d = inplace_repo(lotest.workdir("inplace") / "tree")
    build_inplace(d)
    # the reflog has seconds: the checkout that removes a source is a later second
    time.sleep(1.1)
    lotest.git(d, "checkout", "-q", "branch-b")
    build_inplace(d)  # rebuilds _fast and _slow from the renamed sources
    assert import_sp(d).returncode == 0
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    live = ["sp/_fast" + suffix, "sp/_slow" + suffix]
    gone = "sp/_gone" + suffix

    r = lotest.scan(d)
    assert r.rc == 0, r  # inference alone is no finding
    for rel in live:
        f = r.file(rel)
        assert f["orphan"] is None and f["verdict"] == "ok" and not f["reasons"], f
    g = r.file(gone)
    assert g["orphan"] == "suspected" and g["verdict"] == "suspected", g
    why = r.reasons(gone, "suspected")
    assert [x["evidence"] for x in why] == ["source-deleted"] and "_gone.c" in why[0]["detail"], g
    assert r.doc["summary"]["suspected"] == 1 and r.doc["summary"]["stale"] == 0, r.doc["summary"]

    # text: listed, never silently, as possibly stale, with the evidence
    t = lotest.leftover("scan", d)
    assert t.returncode == 0, t
    assert "%s: possibly stale (python-extension)" % gone in t.stdout, t.stdout
    assert "suspected (source-deleted, no build record)" in t.stdout, t.stdout
    assert "1 possibly stale" in t.stdout, t.stdout
    assert not any(rel in t.stdout for rel in live), t.stdout

    # clean: nothing stale; the suspected module only when asked
    c = lotest.leftover("clean", d)
    assert c.returncode == 0, c
    assert "1 possibly stale file left in place" in c.stdout, c.stdout
    assert all((d / rel).exists() for rel in live + [gone])
    assert import_sp(d).returncode == 0
    c = lotest.leftover("clean", "--suspected", d)
    assert c.returncode == 0, c
    assert not (d / gone).exists(), c
    assert all((d / rel).exists() for rel in live), c
    assert import_sp(d).returncode == 0, import_sp(d)
    r = lotest.scan(d)
    assert r.rc == 0 and r.doc["summary"]["suspected"] == 0, r


if __name__ == "__main__":
    lotest.main(globals())
