"""Outputs a live target stops making, Unix Makefiles beside Ninja (issue 43).

Branch a builds `core` (VERSION 1.0, SOVERSION 1) and the module `plug`
(OUTPUT_NAME plugold); branch b bumps core to 2.0/2 and renames plug's
output to plugnew. Both targets live on, so no clean list of a dead target
names the old files. The same repository is built on a then b with Ninja
and with Unix Makefiles, and scanned the first time, with no flags.

Ninja's .ninja_log records building libcore.so.1.0 and libplugold.so:
both stale, and the build, run after they are removed, does not make them
again. A Makefiles tree keeps no such record: CMake rewrites a live
target's cmake_clean.cmake, link.txt, build.make and depend files with
the current names only, and nothing else in the tree names the old ones
(checked here, so that a CMake that starts recording them fails this test
and gets read). Those files stay unknown (orphan null), never stale, never
moved by clean; `explain` says why no record names them.
"""
import os

import lotest

CMAKELISTS = """cmake_minimum_required(VERSION 3.18)
project(renames C)
add_library(core SHARED core.c)
set_target_properties(core PROPERTIES VERSION %s SOVERSION %s)
add_library(plug MODULE plug.c)
target_link_libraries(plug PRIVATE core)
set_target_properties(plug PROPERTIES OUTPUT_NAME %s)
"""
OLD = ["libcore.so.1.0", "libplugold.so"]
LIVE = ["libcore.so.2.0", "libplugnew.so"]


def make_repo(src):
    src.mkdir(parents=True)
    (src / "core.c").write_text("int core(void) { return 1; }\n")
    (src / "plug.c").write_text("int core(void);\nint plug(void) { return core(); }\n")
    (src / "CMakeLists.txt").write_text(CMAKELISTS % ("1.0", "1", "plugold"))
    lotest.git(src, "init", "-q", "-b", "branch-a")
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-q", "-m", "core 1.0, plugold")
    lotest.git(src, "checkout", "-q", "-b", "branch-b")
    (src / "CMakeLists.txt").write_text(CMAKELISTS % ("2.0", "2", "plugnew"))
    lotest.git(src, "commit", "-q", "-am", "core 2.0, plugnew")


def built(d, generator):
    """A tree of generator `generator`, built on branch-a then branch-b."""
    src, build = d / "src", d / ("build-" + generator.split()[0].lower())
    for branch in ("branch-a", "branch-b"):
        lotest.git(src, "checkout", "-q", branch)
        if branch == "branch-a":
            lotest.run([lotest.CMAKE, "-S", src, "-B", build, "-G", generator])
        lotest.run([lotest.CMAKE, "--build", build, "-j2"])
    assert not (build / ".cmake/api/v1/reply").exists()  # leftover never ran here
    for p in OLD + LIVE:
        assert (build / p).is_file(), p
    return build


def naming(build, names):
    """Files of the tree, other than the old outputs and their links, whose bytes name any of `names`."""
    found = []
    for d, dirs, files in os.walk(build):
        for f in files:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, build)
            if rel in OLD or rel.startswith("libcore.so.1") or os.path.islink(p):
                continue
            with open(p, "rb") as fh:
                data = fh.read()
            if any(n.encode() in data for n in names):
                found.append(rel)
    return found


def test_ninja_and_unix_makefiles():
    d = lotest.workdir("renames")
    make_repo(d / "src")
    ninja = built(d, "Ninja")
    make = built(d, "Unix Makefiles")

    # Ninja: both old outputs stale by its log, and the build does not make them again
    lotest.run([lotest.CMAKE, "--build", ninja])  # the later checkouts rewrote CMakeLists.txt
    r = lotest.scan(ninja)
    assert r.rc == 1, r
    assert lotest.stale_paths(r) == sorted(OLD), r
    for p in OLD:
        assert [x["evidence"] for x in r.reasons(p, "orphan")] == ["ninja-log"], r.file(p)
    for p in LIVE:
        assert r.file(p)["orphan"] is False and r.file(p)["verdict"] == "ok", r.file(p)
    lotest.assert_stale_not_rebuilt(r, ninja, [lotest.CMAKE, "--build", ninja])

    # Unix Makefiles: no record names the old outputs
    assert naming(make, ["plugold", "libcore.so.1"]) == [], naming(make, ["plugold", "libcore.so.1"])
    for args in ((), ("--reconfigure",)):
        r = lotest.scan(make, args=args)
        assert lotest.stale_paths(r) == [], (args, r)
        for p in OLD:
            assert r.file(p)["orphan"] is None and r.file(p)["verdict"] == "ok", (args, r.file(p))
        for p in LIVE:
            assert r.file(p)["orphan"] is False and r.file(p)["verdict"] == "ok", (args, r.file(p))
    for p in OLD:
        out = lotest.leftover("explain", make / p).stdout
        assert "still built: unknown, no record names it: a Unix Makefiles tree keeps none" in out, out
    c = lotest.leftover("clean", make)
    assert c.returncode == 0, c.stdout + c.stderr
    for p in OLD + LIVE:
        assert (make / p).is_file(), p


if __name__ == "__main__":
    lotest.main(globals())
