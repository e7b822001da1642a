"""The walk of a scan in part (docs/performance.md, "Warm scans"): a
directory that stats as it did when the last scan listed it is not read
again, its kept listing stands for it; the others are read. Each change
below is one a shortcut of the walk could miss; after each, the scan in
part says byte for byte what a cold one (--no-cache) says, and --verbose
says how many directories it did not read again: every one the change
left alone.

The tree: a CMake + Ninja project with liba.so and libb.so in lib/, the
plugin libp.so (bound to liba.so) in lib/plugins/, and, beside what the
build made, a text file named like a library (lib/libtext.so) and a
directory alt/ with a copy of the plugin.
"""
import os
import re
import shutil
import time

import lotest

_tree = {}


def tree():
    """The project, built once for the file: its build dir."""
    if not _tree:
        d = lotest.workdir("cache-walk")
        src = d / "src"
        src.mkdir()
        (src / "a.c").write_text("int walk_a(void) { return 1; }\n")
        (src / "b.c").write_text("int walk_b(void) { return 2; }\n")
        (src / "p.c").write_text("int walk_a(void);\nint walk_p(void) { return walk_a(); }\n")
        (src / "CMakeLists.txt").write_text("\n".join([
            "cmake_minimum_required(VERSION 3.16)", "project(walk C)",
            "set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)",
            "add_library(a SHARED a.c)", "add_library(b SHARED b.c)",
            "add_library(p SHARED p.c)", "target_link_libraries(p a)",
            "set_target_properties(p PROPERTIES LIBRARY_OUTPUT_DIRECTORY "
            "${CMAKE_BINARY_DIR}/lib/plugins)", ""]))
        build = d / "build"
        lotest.cmake_build(src, build, "Ninja")
        (build / "lib" / "libtext.so").write_text("not a library yet\n")
        (build / "alt").mkdir()
        shutil.copy2(build / "lib" / "plugins" / "libp.so", build / "alt" / "libalt.so")
        _tree["build"] = build
    return _tree["build"]


def scan(build, *args):
    p = lotest.leftover("scan", "--format", "json", "--verbose", *args, build)
    assert p.returncode in (0, 1), p
    return p


def directories(build):
    """The directories the walk lists (walk.h): links not followed, git's
    store and clean's quarantine skipped."""
    n = 0
    for top, dirs, _ in os.walk(build):
        dirs[:] = [x for x in dirs if x not in (".git", ".leftover.d", ".leftover")]
        n += 1
    return n


def warm(build):
    """The cache kept and standing whole (a CMake tree's first scan writes
    its File API query into it: the scan after that may judge afresh)."""
    for _ in range(4):
        time.sleep(0.05)
        if "verdict cache used:" in scan(build).stderr:
            return
    raise AssertionError("the cache never stood: " + scan(build).stderr)


def in_part(build, read_again):
    """A scan in part, equal to a cold one, that read `read_again`
    directories and took every other one from its kept listing; parsed."""
    time.sleep(0.05)  # past the racy window of what was just written
    w = scan(build)
    cold = scan(build, "--no-cache")
    assert w.stdout == cold.stdout, (w.stderr, cold.stderr)
    m = re.search(r"verdict cache used in part \(.*\): judged \d+, kept \d+; "
                  r"\d+ dependencies kept; (\d+) directories not read again", w.stderr)
    assert m, w.stderr
    assert int(m.group(1)) == directories(build) - read_again, (directories(build), w.stderr)
    return lotest.Scan(w)


def paths(r):
    return {f["path"] for f in r.doc["files"]}


def unchanged_dir(path, action):
    """Run action(); assert it left the directory at `path` as it stats."""
    st = os.stat(path)
    action()
    now = os.stat(path)
    assert (now.st_mtime_ns, now.st_ctime_ns, now.st_ino) == \
        (st.st_mtime_ns, st.st_ctime_ns, st.st_ino), "the change touched " + str(path)


def test_a_change_in_one_directory():
    build = tree()
    lib = build / "lib"
    warm(build)
    shutil.copy2(lib / "liba.so", lib / "libcopy.so")
    r = in_part(build, 1)
    assert "lib/libcopy.so" in paths(r) and "lib/plugins/libp.so" in paths(r), paths(r)
    (lib / "libcopy.so").unlink()
    assert "lib/libcopy.so" not in paths(in_part(build, 1))


def test_a_new_candidate_below_an_unchanged_directory():
    build = tree()
    lib = build / "lib"
    warm(build)
    unchanged_dir(lib, lambda: shutil.copy2(lib / "plugins" / "libp.so",
                                            lib / "plugins" / "libp2.so"))
    r = in_part(build, 1)
    assert "lib/plugins/libp2.so" in paths(r), paths(r)
    assert r.file("lib/plugins/libp2.so")["loads"] == r.file("lib/plugins/libp.so")["loads"]
    (lib / "plugins" / "libp2.so").unlink()
    in_part(build, 1)


def test_a_file_rewritten_in_place_from_text_to_elf():
    build = tree()
    lib = build / "lib"
    text = lib / "libtext.so"
    warm(build)
    before = lotest.Scan(scan(build)).file("lib/libtext.so")
    elf = (lib / "liba.so").read_bytes()

    def rewrite():
        with open(text, "r+b") as f:
            f.write(elf)

    unchanged_dir(lib, rewrite)
    after = in_part(build, 0).file("lib/libtext.so")
    assert after["kind"] != before["kind"] and after["loads"] is True, (before, after)


def test_a_directory_replaced_by_a_link():
    build = tree()
    lib = build / "lib"
    warm(build)
    # a link to a directory the walk lists anyway (and never follows a link to)
    shutil.rmtree(lib / "plugins")
    os.symlink("../alt", lib / "plugins")
    r = in_part(build, 1)
    assert not [p for p in paths(r) if p.startswith("lib/plugins/")], paths(r)
    assert "alt/libalt.so" in paths(r), paths(r)


if __name__ == "__main__":
    lotest.main(globals())
