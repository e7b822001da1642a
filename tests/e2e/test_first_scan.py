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


def make_repo(src):
    """branch-a builds core, plug and gone; branch-b drops gone."""
    src.mkdir(parents=True)
    (src / "core.c").write_text("int core(void) { return 1; }\n")
    (src / "plug.c").write_text("int core(void);\nint plug(void) { return core(); }\n")
    (src / "gone.c").write_text("int core(void);\nint gone(void) { return core() + 1; }\n")
    (src / "CMakeLists.txt").write_text(CMAKELISTS + GONE)
    lotest.git(src, "init", "-q", "-b", "branch-a")
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-q", "-m", "core, plug and gone")
    lotest.git(src, "checkout", "-q", "-b", "branch-b")
    (src / "CMakeLists.txt").write_text(CMAKELISTS)
    lotest.git(src, "commit", "-q", "-am", "drop gone")
    lotest.git(src, "checkout", "-q", "branch-a")


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
    # `make -q` always answers "not up to date" for CMake's phony targets:
    # the tree has nothing to do when a build compiles and links nothing
    out = lotest.run([lotest.CMAKE, "--build", build]).stdout
    assert "Building" not in out and "Linking" not in out, out


if __name__ == "__main__":
    lotest.main(globals())
