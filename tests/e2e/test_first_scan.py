"""The first scan of a tree built before leftover ever ran (issue 16).

The usual case: a tree built on one branch, the branch switched, the tree
rebuilt in the same directory, and only then leftover installed and run,
so there is no File API reply and no --reconfigure. The scan must take
what it knows from the build's own records, for every generator, and never
call a live output stale. Each scenario drops a target ("gone") on the
second branch; the dropped outputs are the only stale files, `clean` moves
only those, the tree then has nothing to build, and on Ninja trees the
orphaned shared objects are exactly what `ninja -t cleandead` removes on a
copy of the tree (for Ninja Multi-Config: what every configuration's
manifest agrees to remove, since each alone knows only its own outputs).
"""
import os
import shutil

import lotest

CMAKELISTS = """cmake_minimum_required(VERSION 3.18)
project(firstscan C)
add_library(core SHARED core.c)
add_library(plug MODULE plug.c)
target_link_libraries(plug PRIVATE core)
add_custom_command(OUTPUT table.txt COMMAND ${CMAKE_COMMAND} -E echo 1 > table.txt)
add_custom_target(table ALL DEPENDS table.txt)
"""
GONE = """add_library(gone SHARED gone.c)
target_link_libraries(gone PRIVATE core)
"""


def two_branches(repo, name, second):
    """The files in repo committed as branch-a; branch-b has `second` in `name`."""
    lotest.git(repo, "init", "-q", "-b", "branch-a")
    lotest.git(repo, "add", "-A")
    lotest.git(repo, "commit", "-q", "-m", "core, plug and gone")
    lotest.git(repo, "checkout", "-q", "-b", "branch-b")
    (repo / name).write_text(second)
    lotest.git(repo, "commit", "-q", "-am", "drop gone")
    lotest.git(repo, "checkout", "-q", "branch-a")


def make_repo(src):
    """branch-a builds core, plug and gone; branch-b drops gone."""
    src.mkdir(parents=True)
    (src / "core.c").write_text("int core(void) { return 1; }\n")
    (src / "plug.c").write_text("int core(void);\nint plug(void) { return core(); }\n")
    (src / "gone.c").write_text("int core(void);\nint gone(void) { return core() + 1; }\n")
    (src / "CMakeLists.txt").write_text(CMAKELISTS + GONE)
    two_branches(src, "CMakeLists.txt", CMAKELISTS)


def is_so(path):
    name = os.path.basename(path)
    return name.endswith(".so") or ".so." in name


def tree_files(root):
    out = set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".leftover"]
        for f in files:
            out.add(os.path.relpath(os.path.join(d, f), root))
    return out


def cleandead(build, manifests):
    """The shared objects `ninja -t cleandead` removes, run on a copy per manifest."""
    dead = None
    for m in manifests:
        copy = build.parent / ("cleandead-" + m)
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(build, copy, symlinks=True)
        before = tree_files(copy)
        lotest.run(["ninja", "-C", copy, "-f", m, "-t", "cleandead"])
        removed = {p for p in before - tree_files(copy) if is_so(p)}
        dead = removed if dead is None else dead & removed
        shutil.rmtree(copy)
    return dead


def two_branch_cmake(name, generator, configs=(None,), defines=None):
    d = lotest.workdir(name)
    src, build = d / "src", d / "build"
    make_repo(src)
    cmd = [lotest.CMAKE, "-S", src, "-B", build, "-G", generator]
    cmd += ["-D%s=%s" % kv for kv in (defines or {}).items()]
    for branch in ("branch-a", "branch-b"):
        lotest.git(src, "checkout", "-q", branch)
        if branch == "branch-a":
            lotest.run(cmd)
        for c in configs:
            lotest.run([lotest.CMAKE, "--build", build, "-j2"] + (["--config", c] if c else []))
    assert not (build / ".cmake/api/v1/reply").exists()  # leftover never ran here
    return build


def check_first_scan(build, dropped, live, evidence):
    """The first scan: exactly `dropped` stale; `live` produced and fine."""
    r = lotest.scan(build)
    assert r.rc == 1, r
    files = r.files
    stale = {p for p, f in files.items() if f["verdict"] == "stale"}
    assert stale == set(dropped), (stale, r.doc["notes"])
    for p in dropped:
        assert files[p]["orphan"] is True, files[p]
        assert [x["evidence"] for x in files[p]["reasons"] if x["kind"] == "orphan"] == [evidence]
    for p in live:
        assert files[p]["orphan"] is False and files[p]["verdict"] == "ok", files[p]
    return r


def check_clean(build, dropped):
    """clean moves the dropped outputs (their objects too) and nothing live."""
    before = tree_files(build)
    c = lotest.leftover("clean", build)
    assert c.returncode == 0, c.stdout + c.stderr
    moved = before - tree_files(build)
    assert set(dropped) <= moved, (moved, dropped)
    assert all("gone" in p for p in moved), moved


def ninja_has_no_work(build, manifests):
    for m in manifests:
        out = lotest.run(["ninja", "-C", build, "-f", m, "-n"]).stdout
        assert "no work to do" in out, (m, out)


def check_ninja(name, generator, configs, manifests):
    build = two_branch_cmake(name, generator, configs,
                             {"CMAKE_CONFIGURATION_TYPES": ";".join(configs)} if configs[0] else None)
    sub = [c + "/" for c in configs] if configs[0] else [""]
    dropped = ["%slibgone.so" % s for s in sub]
    live = ["%slibcore.so" % s for s in sub] + ["%slibplug.so" % s for s in sub]
    r = check_first_scan(build, dropped, live, "ninja-log")
    orphans = {p for p, f in r.files.items() if f["orphan"] is True and is_so(p)}
    assert orphans == cleandead(build, manifests), orphans
    check_clean(build, dropped)
    ninja_has_no_work(build, manifests)


def test_ninja():
    check_ninja("first-ninja", "Ninja", (None,), ["build.ninja"])


def test_ninja_multi_config_two_configurations():
    # the reproduction: the live Release/libcore.so was called stale
    configs = ("Debug", "Release")
    check_ninja("first-mc2", "Ninja Multi-Config", configs,
                ["build.ninja"] + ["build-%s.ninja" % c for c in configs])


def test_ninja_multi_config_three_configurations():
    configs = ("Debug", "Release", "RelWithDebInfo")
    check_ninja("first-mc3", "Ninja Multi-Config", configs,
                ["build.ninja"] + ["build-%s.ninja" % c for c in configs])


def explain_records(path):
    out = lotest.leftover("explain", path).stdout
    lines = [l for l in out.splitlines() if l.startswith("still built: ")]
    assert len(lines) == 1, out
    return lines[0]


def test_explain_names_the_record_that_decided():
    # before any reply: the configuration's own manifest; with one: the reply
    configs = ("Debug", "Release")
    build = two_branch_cmake("first-explain", "Ninja Multi-Config", configs,
                             {"CMAKE_CONFIGURATION_TYPES": ";".join(configs)})
    line = explain_records(build / "Release/libcore.so")
    assert line == "still built: yes, named by the ninja manifest CMakeFiles/impl-Release.ninja", line
    line = explain_records(build / "Release/libgone.so")
    assert line.startswith("still built: no (evidence ninja-log: built "), line
    assert lotest.scan(build, args=["--reconfigure"]).file("Release/libgone.so")["orphan"] is True
    line = explain_records(build / "Release/libcore.so")
    assert line == "still built: yes, named by the File API reply (target core)", line
    (build / "build-Release.ninja").unlink()
    line = explain_records(build / "Release/libgone.so")
    assert line.startswith("still built: unknown, ") and "build-Release.ninja" in line, line


def test_multi_config_without_a_configuration_manifest_is_no_evidence():
    # the rule alone: a configuration whose manifest cannot be read leaves every verdict open
    configs = ("Debug", "Release")
    build = two_branch_cmake("first-mc-missing", "Ninja Multi-Config", configs,
                             {"CMAKE_CONFIGURATION_TYPES": ";".join(configs)})
    (build / "build-Release.ninja").rename(build / "build-Release.ninja.away")
    r = lotest.scan(build)
    assert not [p for p, f in r.files.items() if f["verdict"] == "stale"], r.stdout
    assert r.file("Release/libgone.so")["orphan"] is None, r.file("Release/libgone.so")
    assert any("build-Release.ninja" in n for n in r.doc["notes"]), r.doc["notes"]


def test_unix_makefiles():
    build = two_branch_cmake("first-make", "Unix Makefiles")
    check_first_scan(build, ["libgone.so"], ["libcore.so", "libplug.so"], "cmake-clean-list")
    check_clean(build, ["libgone.so"])
    # `make -q` of the top Makefile always answers "not up to date" (CMake's
    # targets there are phony); each live target's own rules say "nothing to do"
    for target, output in (("core", "libcore.so"), ("plug", "libplug.so")):
        q = lotest.run(["make", "-q", "-C", build, "-f", "CMakeFiles/%s.dir/build.make" % target,
                        output], check=False)
        assert q.returncode == 0, (target, q.stdout, q.stderr)
    out = lotest.run([lotest.CMAKE, "--build", build]).stdout
    assert "Building" not in out and "Linking" not in out, out


# A ninja tree no generator made, in git: variables, an include, a subninja
# in a subdirectory (its own build.ninja, yet no tree of its own), an
# implicit output, escapes, a continued line and phony aliases. Branch a
# builds lib/libgone.so (and one named with a space and a colon); branch b
# not.
RULES = """cflags = -O1
rule cc
  command = gcc $cflags -shared -fPIC -o $out $in -Wl,-Map,$map
  description = CC $out
"""
TOP = """libdir = lib
include rules.ninja
build $libdir/libcore.so | ${libdir}/libcore.map: cc core.c
  map = $libdir/libcore.map
subninja plugins/build.ninja
build core: phony $libdir/libcore.so
"""
TOP_GONE = """build $libdir/libgone$ .so$:x.so: cc gone.c
  map = /dev/null
build gone: phony $libdir/libgone$ .so$:x.so
build $libdir/libgone.so: cc $
    gone.c
  map = /dev/null
"""
PLUGINS = """pdir = plugins
build $pdir/libplug.so: cc plug.c
  map = /dev/null
"""


def handwritten_tree(name):
    d = lotest.workdir(name)
    t = d / "tree"
    (t / "plugins").mkdir(parents=True)
    (t / "core.c").write_text("int core(void) { return 1; }\n")
    (t / "gone.c").write_text("int gone(void) { return 2; }\n")
    (t / "plug.c").write_text("int plug(void) { return 3; }\n")
    (t / "rules.ninja").write_text(RULES)
    (t / "plugins/build.ninja").write_text(PLUGINS)
    (t / "build.ninja").write_text(TOP + TOP_GONE)
    (t / ".gitignore").write_text("lib/\n*.so\n.ninja_*\n")
    two_branches(t, "build.ninja", TOP)
    for branch in ("branch-a", "branch-b"):
        lotest.git(t, "checkout", "-q", branch)
        lotest.run(["ninja", "-C", t])
    return t


DROPPED = ["lib/libgone.so", "lib/libgone .so:x.so"]
LIVE = ["lib/libcore.so", "plugins/libplug.so"]


def test_handwritten_ninja_tree():
    t = handwritten_tree("first-handwritten")
    r = check_first_scan(t, DROPPED, LIVE, "ninja-log")
    orphans = {p for p, f in r.files.items() if f["orphan"] is True and is_so(p)}
    assert orphans == cleandead(t, ["build.ninja"]) == set(DROPPED), orphans
    check_clean(t, DROPPED)
    ninja_has_no_work(t, ["build.ninja"])


def damaged(name, how):
    """The hand-written tree with one record damaged by `how(tree)`: no orphan, a note."""
    t = handwritten_tree("first-damaged-" + name)
    how(t)
    r = lotest.scan(t)
    for p in DROPPED + LIVE:
        assert r.file(p)["orphan"] is not True and r.file(p)["verdict"] != "stale", r.file(p)
    assert r.file("lib/libgone.so")["orphan"] is None, r.file("lib/libgone.so")
    return r.doc["notes"]


def cut(path, keep):
    data = path.read_bytes()
    path.write_bytes(data[:keep(data)])


def test_a_log_cut_short_is_no_evidence():
    notes = damaged("log-cut", lambda t: cut(t / ".ninja_log", lambda d: len(d) - 3))
    assert any("cut short" in n for n in notes), notes


def test_a_log_from_a_newer_ninja_is_no_evidence():
    def newer(t):
        log = t / ".ninja_log"
        lines = log.read_text().split("\n")
        log.write_text("\n".join(["# ninja log v99"] + lines[1:]))
    notes = damaged("log-newer", newer)
    assert any("version 99" in n for n in notes), notes


def appending(name, line):
    """A damage: `line` added at the end of the tree's file `name`."""
    def append(t):
        with open(t / name, "a") as f:
            f.write(line)
    return append


def test_a_log_naming_a_path_outside_the_tree_is_no_evidence():
    notes = damaged("log-outside", appending(
        ".ninja_log", "1\t2\t1700000000000000000\t../elsewhere/libx.so\t0\n"))
    assert any("outside the tree" in n for n in notes), notes


def test_a_manifest_cut_short_is_no_evidence():
    # cut inside the include's path: ninja would fail on it too
    notes = damaged("manifest-cut", lambda t: cut(t / "build.ninja",
                                                   lambda d: d.index(b"rules.ninja") + 5))
    assert any("build.ninja" in n for n in notes), notes


def test_a_manifest_that_includes_itself_is_no_evidence():
    # ninja would recurse until it died; leftover reads it once, and says so
    # (found by fuzz/fuzz_ninja_manifest: it read the cycle 32 levels deep)
    notes = damaged("manifest-cycle", appending("plugins/build.ninja",
                                                "subninja plugins/build.ninja\n"))
    assert any("'plugins/build.ninja' includes itself" in n for n in notes), notes


def test_a_manifest_naming_an_output_outside_the_tree_is_no_evidence():
    notes = damaged("manifest-outside", appending(
        "build.ninja", "build /elsewhere/libcore.so: cc core.c\n"))
    assert any("outside the tree" in n for n in notes), notes


# An ExternalProject super-build: the sub-build is a tree of its own, with
# its own CMakeCache.txt and .ninja_log, and judges the files under it.
SUPER = """cmake_minimum_required(VERSION 3.18)
project(super NONE)
include(ExternalProject)
ExternalProject_Add(inner SOURCE_DIR {src} BINARY_DIR ${{CMAKE_BINARY_DIR}}/inner-build
  CMAKE_GENERATOR Ninja INSTALL_COMMAND "" BUILD_ALWAYS ON)
"""


def test_external_project_sub_build():
    d = lotest.workdir("first-superbuild")
    src, sup, build = d / "src", d / "super", d / "build"
    make_repo(src)
    sup.mkdir()
    (sup / "CMakeLists.txt").write_text(SUPER.format(src=src))
    lotest.run([lotest.CMAKE, "-S", sup, "-B", build, "-G", "Ninja"])
    for branch in ("branch-a", "branch-b"):
        lotest.git(src, "checkout", "-q", branch)
        lotest.run([lotest.CMAKE, "--build", build])
    inner = build / "inner-build"
    assert (inner / "libgone.so").exists() and (inner / "CMakeCache.txt").exists()
    dropped = ["inner-build/libgone.so"]
    r = check_first_scan(build, dropped, ["inner-build/libcore.so", "inner-build/libplug.so"],
                         "ninja-log")
    detail = [x["detail"] for x in r.reasons(dropped[0], "orphan")]
    assert "nested build tree" in detail[0], detail
    orphans = {"inner-build/" + p for p in cleandead(inner, ["build.ninja"])}
    assert orphans == {p for p, f in r.files.items() if f["orphan"] is True and is_so(p)}
    # the sub-build scanned alone is judged by the same records
    r = lotest.scan(inner)
    assert {p for p, f in r.files.items() if f["verdict"] == "stale"} == {"libgone.so"}, r.stdout
    check_clean(build, dropped)
    ninja_has_no_work(inner, ["build.ninja"])


if __name__ == "__main__":
    lotest.main(globals())
