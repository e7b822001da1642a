"""Where a build tree came from, through libgit2.

The report names the source tree's commit and branch; the next scan after
a branch switch says which branch the tree was built at before; a file
committed to the repository (an in-source build shipping a prebuilt .so)
is marked tracked and clean never touches it; without git there is one
line saying so and everything else works. A build inside its checkout
costs one open of the repository and one reading of the checkout, up to
its first change (strace).
"""
import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

import lotest
from test_twobranch import STALE, make_repo


def state_of(build):
    """The record of a build dir's scans: in the cache, by its real path's SHA-256."""
    key = hashlib.sha256(str(Path(build).resolve()).encode()).hexdigest()
    return lotest.CACHE / "leftover" / "state" / (key + ".json")


def test_branch_switch_is_named():
    src, build = make_repo("origin-switch")
    lotest.cmake_build(src, build)
    first = lotest.scan(build)
    tree = first.doc["trees"][0]
    head = lotest.git(src, "rev-parse", "HEAD").strip()
    assert tree["commit"] == head and tree["branch"] == "branch-a" and tree["dirty"] is False, tree
    state = state_of(build).read_text()
    assert head in state and "branch-a" in state, state
    # kept in the user's cache, never in the tree
    assert not (build / ".leftover").exists() and not (build / ".leftover.d").exists()

    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build)
    p = lotest.leftover("scan", build)
    assert p.returncode == 1, p
    new = lotest.git(src, "rev-parse", "HEAD").strip()
    line = "built at branch branch-a (%s), now on branch branch-b (%s)" % (head[:7], new[:7])
    assert line in p.stdout, p.stdout
    assert STALE in p.stdout
    # a second scan on branch-b still knows the branch the tree was built at
    again = lotest.leftover("scan", build)
    assert line in again.stdout, again.stdout
    # explain names what changed about the module between the two commits
    e = lotest.leftover("explain", build / STALE)
    assert "changed since branch branch-a (%s), mentioning _mlirRegisterEverything:" % head[:7] \
        in e.stdout, e.stdout
    changed = e.stdout.split("mentioning _mlirRegisterEverything:")[1].split()
    assert str(src.resolve() / "CMakeLists.txt") in changed, changed
    assert str(src.resolve() / "python" / "_mlirRegisterEverything.c") in changed, changed


def test_branch_switch_is_named_on_the_first_scan():
    """No scan saw the tree on branch-a: git's reflog says where HEAD was
    when the tree's oldest file was written."""
    src, build = make_repo("origin-first-scan")
    # The reflog has seconds: make-repo.sh's last checkout must be in an
    # earlier second than the build's first file, as it is for a person.
    time.sleep(1.1)
    lotest.cmake_build(src, build)
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build)
    assert not state_of(build).exists()
    p = lotest.leftover("scan", build)
    assert p.returncode == 1, p
    a = lotest.git(src, "rev-parse", "branch-a").strip()
    b = lotest.git(src, "rev-parse", "branch-b").strip()
    line = "built at branch branch-a (%s), now on branch branch-b (%s)" % (a[:7], b[:7])
    assert line in p.stdout, p.stdout
    # the record keeps it, so the note outlives the files that showed it
    assert lotest.leftover("clean", build).returncode == 0
    again = lotest.scan(build)
    assert again.rc == 0 and any(line in n for n in again.doc["notes"]), again


def test_a_tree_built_on_its_branch_has_no_switch_note():
    src, build = make_repo("origin-first-scan-same")
    time.sleep(1.1)
    lotest.cmake_build(src, build)
    r = lotest.scan(build)
    assert r.rc == 0 and not [n for n in r.doc["notes"] if "built at branch" in n], r


def test_committed_library_in_an_in_source_build_is_tracked_and_kept():
    d = lotest.workdir("origin-insource")
    lotest.cc(d / "prebuilt" / "libvendor.so", "int gone(void); int vendor(void){return gone();}")
    (d / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(insource C)\n"
        "file(WRITE ${CMAKE_BINARY_DIR}/own.c \"int own(void){return 1;}\")\n"
        "add_library(own SHARED ${CMAKE_BINARY_DIR}/own.c)\n")
    lotest.git(d, "init", "-q")
    lotest.git(d, "add", "CMakeLists.txt", "prebuilt/libvendor.so", "prebuilt/libvendor_so.c")
    lotest.git(d, "commit", "-q", "-m", "vendor library, committed on purpose")
    lotest.cmake_build(d, d)  # in-source
    r = lotest.scan(d)
    vendor = r.file("prebuilt/libvendor.so")
    assert vendor["tracked"] is True and vendor["verdict"] == "broken", vendor
    assert r.file("libown.so")["tracked"] is False, r.file("libown.so")
    c = lotest.leftover("clean", "--broken", d)
    assert (d / "prebuilt" / "libvendor.so").exists(), c.stdout + c.stderr


def test_without_git_one_line_says_so():
    # outside any repository (the suite's own work dir may sit in a clone)
    d = Path(tempfile.mkdtemp(prefix="leftover-nogit-"))
    (d / "src").mkdir()
    (d / "src" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(nogit C)\n"
        "file(WRITE ${CMAKE_BINARY_DIR}/m.c \"int missing(void); int m(void){return missing();}\")\n"
        "add_library(m SHARED ${CMAKE_BINARY_DIR}/m.c)\n")
    lotest.cmake_build(d / "src", d / "build")
    r = lotest.scan(d / "build")
    assert r.rc == 1, r
    notes = [n for n in r.doc["notes"] if "no git repository" in n]
    assert len(notes) == 1, r.doc["notes"]
    assert r.doc["trees"][0]["commit"] is None, r.doc["trees"]
    shutil.rmtree(d)


def stats_of_tracked(src, build, exclude_build):
    """A scan of `build` inside the checkout `src`, settled as a build finds
    it (written a while ago, the index refreshed since, so that no entry is
    too recent for git to trust its stat): its JSON, and how often each
    tracked file was looked at (lstat), by its path or by its name in its
    directory's descriptor."""
    if exclude_build:
        with open(src / ".git" / "info" / "exclude", "a") as f:
            f.write("/build/\n")
    tracked = lotest.git(src, "ls-files").split()
    for t in tracked:
        os.utime(src / t, (time.time() - 3600,) * 2)
    lotest.git(src, "update-index", "-q", "--refresh")
    doc, lines = lotest.traced_scan(build, "stat,lstat,newfstatat,statx",
                             src.parent / ("trace-%d" % exclude_build))
    lstats = [line for line in lines if "lstat(" in line or "AT_SYMLINK_NOFOLLOW" in line]
    top = src.resolve()
    looks = {t: {"by path": sum('"%s/%s"' % (top, t) in line for line in lstats),
                 "by name": sum('<%s>, "%s"' % ((top / t).parent, Path(t).name) in line
                                for line in lstats)}
             for t in tracked}
    return doc, looks


def test_the_index_is_read_as_for_a_build_outside_the_checkout():
    """The build tree's repository is the source's: one open of it serves
    the judging (which files are tracked), the build model (the Python
    tree's evidence) and the tree's record, so its index is read as often
    as when only the record opens it, for a build beside the checkout; the
    SARIF report's open, for the path alone, does not read it."""
    src, beside = make_repo("origin-index-once")
    inside = src / "build"
    lotest.cmake_build(src, inside)
    lotest.cmake_build(src, beside)
    index = '"%s"' % (src.resolve() / ".git" / "index")
    reads = {}
    for name, build in (("inside", inside), ("beside", beside)):
        doc, lines = lotest.traced_scan(build, "open,openat,openat2",
                                        src.parent / ("trace-" + name))
        assert doc["trees"][0]["commit"], doc["trees"]  # git was read
        reads[name] = sum(index in line for line in lines)
    # the SARIF report opens the repository again, for its work tree's path
    doc, lines = lotest.traced_scan(inside, "open,openat,openat2", src.parent / "trace-sarif",
                                    "sarif")
    assert doc["runs"][0]["automationDetails"]["id"].startswith("leftover/build/"), doc["runs"][0]
    reads["sarif"] = sum(index in line for line in lines)
    assert reads["beside"] > 0 and reads["inside"] == reads["beside"] == reads["sarif"], reads


def test_a_clean_checkout_is_read_once():
    """Whether the checkout is dirty is read once, by the tree's record."""
    src, _ = make_repo("origin-read-once")
    build = src / "build"
    lotest.cmake_build(src, build)
    doc, looks = stats_of_tracked(src, build, exclude_build=True)
    assert doc["trees"][0]["dirty"] is False, doc["trees"]
    # every tracked file must be looked at to call the checkout clean: once,
    # by its name, not its whole path walked again for each (libgit2's way)
    assert looks and all(n == {"by path": 0, "by name": 1} for n in looks.values()), looks


def test_a_dirty_checkout_is_read_up_to_its_first_change():
    """build/ is untracked and not ignored: the checkout is dirty as soon as
    it comes, and the files after it in git's order are never looked at."""
    src, _ = make_repo("origin-first-change")
    build = src / "build"
    lotest.cmake_build(src, build)
    doc, looks = stats_of_tracked(src, build, exclude_build=False)
    assert doc["trees"][0]["dirty"] is True, doc["trees"]
    after = {t: n for t, n in looks.items() if t > "build/"}
    assert after and all(sum(n.values()) == 0 for n in after.values()), looks


if __name__ == "__main__":
    lotest.main(globals())
