"""A generated file that moves to configure time is not an orphan.

fixtures/orphans/unit/: gen/extra.txt is a custom command's output by
default and configure_file's with -DEXTRA_BY=configure; -DLIBNAME renames
the one library. Both changes at once, as one branch switch would make
them: the old library is stale by the generator's records, but the
generator's records of gen/extra.txt (the Ninja log, the dead target's
cmake_clean.cmake) speak of a file that configure_file has since
replaced, and the scan must not offer it for removal.
"""
import time

import lotest

EVIDENCE = {"Ninja": "ninja-log", "Unix Makefiles": "cmake-clean-list"}


def check(generator):
    d = lotest.workdir("takeover-" + generator.replace(" ", "-"))
    src, build = lotest.FIXTURES / "orphans" / "unit", d / "build"
    lotest.cmake_build(src, build, generator, {"LIBNAME": "old", "EXTRA_BY": "command"})
    assert (build / "gen/extra.txt").read_text().strip() == "built"
    time.sleep(0.2)  # the Ninja log's time of gen/extra.txt and configure_file's differ
    lotest.cmake_build(src, build, generator, {"LIBNAME": "new", "EXTRA_BY": "configure"})
    assert (build / "gen/extra.txt").read_text().strip() == "configured"

    r = lotest.scan(build, args=["--reconfigure"])
    assert r.rc == 1, r
    old = r.file("lib/libold.so")
    assert old["verdict"] == "stale" and old["orphan"] is True, old
    assert [x["evidence"] for x in old["reasons"] if x["kind"] == "orphan"] == [EVIDENCE[generator]], old
    new = r.file("lib/libnew.so")
    assert new["verdict"] == "ok" and new["orphan"] is False, new
    # listed only if orphaned: it must not be
    assert "gen/extra.txt" not in r.files, r.files.get("gen/extra.txt")
    assert "gen/version.h" not in r.files, r.files.get("gen/version.h")


def test_a_subdirectory_is_judged_by_its_build_trees_records():
    # `leftover scan build/lib`: the records are build/'s, the paths lib/'s
    d = lotest.workdir("takeover-subdir")
    src, build = lotest.FIXTURES / "orphans" / "unit", d / "build"
    lotest.cmake_build(src, build, "Unix Makefiles", {"LIBNAME": "old"})
    lotest.cmake_build(src, build, "Unix Makefiles", {"LIBNAME": "new"})
    r = lotest.scan(build / "lib", args=["--reconfigure"])
    assert r.rc == 1, r
    assert r.file("libold.so")["verdict"] == "stale", r.file("libold.so")
    assert r.file("libnew.so")["orphan"] is False, r.file("libnew.so")
    # orphans outside the scanned directory are not listed, nor counted as its bookkeeping
    assert all(not p.startswith(("..", "/", "CMakeFiles")) for p in r.files), sorted(r.files)
    assert r.doc["summary"]["bookkeeping"] == 0, r.doc["summary"]


def test_ninja():
    check("Ninja")


def test_unix_makefiles():
    check("Unix Makefiles")


if __name__ == "__main__":
    lotest.main(globals())
