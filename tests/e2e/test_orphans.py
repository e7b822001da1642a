"""Orphans: what the current build no longer produces, with the evidence.

fixtures/orphans/: branch-a builds module _old and copies
_site_initialize_0.py into the package; branch-b renames the module _new
and drops the copy; both produce files in every other way CMake can
(custom command output, configure_file, file(COPY), a POST_BUILD copy, an
IMPORTED library), none of which may be called an orphan. Each generator
keeps its own records: the Ninja log (Ninja, Ninja Multi-Config) or the
dead target's cmake_clean.cmake (Unix Makefiles).
"""
import lotest
from test_twobranch import STALE as TWOBRANCH_STALE, SOABI, make_repo

EVIDENCE = {"Ninja": "ninja-log", "Ninja Multi-Config": "ninja-log",
            "Unix Makefiles": "cmake-clean-list"}


def orphans_tree(generator, configs=("",)):
    d = lotest.workdir("orphans-" + generator.replace(" ", "-"))
    src, build = d / "src", d / "build"
    lotest.run(["sh", lotest.FIXTURES / "orphans" / "make-repo.sh", src])
    lotest.cmake_build(src, build, generator)
    lotest.git(src, "checkout", "-q", "branch-b")
    for c in configs:
        lotest.run([lotest.CMAKE, "--build", build, "-j2"] + (["--config", c] if c else []))
    return build


def orphan_reason(f):
    rs = [r for r in f["reasons"] if r["kind"] == "orphan"]
    assert len(rs) == 1, f
    return rs[0]


def check_generator(generator, prefix="", configs=("",)):
    build = orphans_tree(generator, configs)
    r = lotest.scan(build, args=["--reconfigure"])
    assert r.rc == 1, r
    files = r.files
    stale = {p for p, f in files.items() if f["verdict"] == "stale"}
    old = "pkg/%s_old%s" % (prefix, SOABI)
    assert stale == {old, "pkg/_site_initialize_0.py"}, (stale, r.stdout)
    for p in stale:
        assert files[p]["orphan"] is True, files[p]
        assert orphan_reason(files[p])["evidence"] == EVIDENCE[generator], files[p]
    # the stale .py is listed although it is no candidate by name
    assert files["pkg/_site_initialize_0.py"]["kind"] == "other"
    # the renamed module and everything else current: not orphans
    for c in configs:
        sub = (c + "/") if c else prefix
        for p in ("pkg/%s_new%s" % (sub, SOABI), "pkg/%slibkeep.so" % sub):
            assert files[p]["orphan"] is False and files[p]["verdict"] == "ok", files[p]
    # produced without a record of it (a POST_BUILD copy): no evidence either way
    assert files["copies/libkeep-copy.so"]["orphan"] is None, files["copies/libkeep-copy.so"]
    # configure_file, file(COPY), custom command output, IMPORTED: never orphans
    for p in ("gen/version.h", "share/data/table.txt", "gen/table.c"):
        assert p not in files, (p, files.get(p))
    return r


def test_ninja_rename_and_stale_py():
    check_generator("Ninja")


def test_unix_makefiles_rename_and_stale_py():
    check_generator("Unix Makefiles")


def test_ninja_multi_config_any_configuration_counts():
    check_generator("Ninja Multi-Config", prefix="Debug/", configs=("Debug", "Release"))


def test_twobranch_module_is_stale_with_the_generators_evidence():
    for generator in ("Ninja", "Unix Makefiles"):
        src, build = make_repo("orphans-twobranch-" + generator.replace(" ", "-"))
        lotest.cmake_build(src, build, generator)
        lotest.git(src, "checkout", "-q", "branch-b")
        lotest.cmake_build(src, build, generator)
        r = lotest.scan(build, args=["--reconfigure"])
        f = r.file(TWOBRANCH_STALE)
        assert f["verdict"] == "stale" and f["orphan"] is True and f["loads"] is False, f
        assert orphan_reason(f)["evidence"] == EVIDENCE[generator], f
        text = lotest.leftover("scan", build).stdout
        assert "orphan: " in text and "undefined symbol: mlirRegisterAllPasses" in text, text


def test_without_a_reply_the_scan_says_how_to_get_one():
    d = lotest.workdir("orphans-noreply")
    lotest.run(["sh", lotest.FIXTURES / "orphans" / "make-repo.sh", d / "src"])
    lotest.cmake_build(d / "src", d / "build", "Unix Makefiles")
    r = lotest.scan(d / "build")
    assert any("--reconfigure" in n for n in r.doc["notes"]), r.doc["notes"]
    # the query is written now, so the next configure answers it
    assert (d / "build" / ".cmake/api/v1/query/codemodel-v2").exists()


def test_outside_a_cmake_tree_orphan_is_null():
    d = lotest.workdir("orphans-plain")
    lotest.cc(d / "libx.so", "int x(void){return 1;}")
    r = lotest.scan(d)
    assert r.rc == 0 and r.file("libx.so")["orphan"] is None, r


if __name__ == "__main__":
    lotest.main(globals())
