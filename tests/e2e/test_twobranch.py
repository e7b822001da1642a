"""The failure leftover exists for, rebuilt for real (fixtures/twobranch/).

A build dir used for branch-a, then reused for branch-b, keeps the
_mlirRegisterEverything extension that branch-b no longer builds; it needs
mlirRegisterAllPasses, which branch-b's libMLIRCAPI.so no longer exports, so
importing the package fails. leftover must name exactly that module and
that symbol, and nothing else, with either generator; a tree built only
from branch-b is clean.
"""
import lotest

PKG = "python_packages/mlir/_mlir_libs"
SOABI = lotest.run([lotest.PYTHON, "-c",
                    "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.strip()
STALE = PKG + "/_mlirRegisterEverything" + SOABI


def make_repo(name):
    d = lotest.workdir(name)
    lotest.run(["sh", lotest.FIXTURES / "twobranch" / "make-repo.sh", d / "src"])
    return d / "src", d / "build"


def import_package(build):
    """Import the package with the fixture's interpreter, as its tests would."""
    return lotest.run([lotest.PYTHON, "-c", "import mlir._mlir_libs as m; print(m.registered_passes)"],
                      env={"PYTHONPATH": str(build / "python_packages")}, check=False)


def reused_build_dir(generator):
    src, build = make_repo("twobranch-" + generator.replace(" ", "-"))
    lotest.cmake_build(src, build, generator)
    # The fixture is what it claims: the modules find libMLIRCAPI through
    # DT_RUNPATH $ORIGIN, and on branch-a the package imports and registers.
    dyn = lotest.run(["readelf", "-d", build / STALE]).stdout
    assert "(RUNPATH)" in dyn and "[$ORIGIN]" in dyn and "(RPATH)" not in dyn, dyn
    p = import_package(build)
    assert p.returncode == 0 and p.stdout.strip() == "42", (p.stdout, p.stderr)
    assert lotest.scan(build).rc == 0

    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build, generator)
    assert (build / STALE).exists(), "the rebuild removed the old module; nothing to test"

    # What the user sees: the import dies on the stale module.
    p = import_package(build)
    assert p.returncode != 0, p.stdout
    assert "ImportError" in p.stderr and "undefined symbol: mlirRegisterAllPasses" in p.stderr, p.stderr

    # What leftover says: that module, that symbol, everything else fine.
    r = lotest.scan(build)
    assert r.rc == 1, r
    f = r.file(STALE)
    assert f["kind"] == "python-extension", f
    assert f["loads"] is False, f
    # "stale" once the build system is consulted (a later issue), "broken" until then.
    assert f["verdict"] in ("broken", "stale"), f
    assert any(x["symbol"] == "mlirRegisterAllPasses" for x in r.reasons(STALE, "undefined-symbol")), f
    others = {p: g["verdict"] for p, g in r.files.items() if p != STALE}
    assert set(others) == {PKG + "/_mlir" + SOABI, PKG + "/libMLIRCAPI.so"}, others
    assert set(others.values()) == {"ok"}, others
    assert r.doc["summary"]["files"] == 3, r.doc["summary"]

    t = lotest.leftover("scan", build)
    assert t.returncode == 1, t
    assert STALE in t.stdout and "mlirRegisterAllPasses" in t.stdout, t.stdout
    # the summary counts in the singular what is one (the dropped module's object)
    n = r.doc["summary"]["bookkeeping"]
    if n == 1:
        assert "; 1 orphaned object or bookkeeping file not listed (--all)" in t.stdout, t.stdout
    elif n:
        assert "; %d orphaned object or bookkeeping files not listed" % n in t.stdout, t.stdout


def test_reused_build_dir_ninja():
    reused_build_dir("Ninja")


def test_reused_build_dir_unix_makefiles():
    reused_build_dir("Unix Makefiles")


def test_fresh_build_of_branch_b_is_clean():
    src, build = make_repo("twobranch-fresh")
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build)
    assert import_package(build).returncode == 0
    r = lotest.scan(build)
    assert r.rc == 0, r
    assert {f["verdict"] for f in r.doc["files"]} == {"ok"}, r.files
    assert r.doc["summary"]["files"] == 2, r.doc["summary"]


if __name__ == "__main__":
    lotest.main(globals())
