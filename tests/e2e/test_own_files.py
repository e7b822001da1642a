"""leftover's own files never in the way (issue 43, points 5, 6 and 10).

An in-source CMake build (`cmake -S . -B .`) puts the build tree where the
source tree's `.leftover` rule file is: scan, explain and clean must each
run twice in a row there, a scan must write nothing into the tree but
CMake's own File API query (its record goes to the user's cache), and what
clean keeps (`.leftover.d/`) must not show in `git status`. A clean at a
checkout root must not break the scan of a build tree below it. After a
SOVERSION bump, clean takes the soname link with its library: the next
scan is clean, ninja has nothing to do, and restore puts both back as they
were. On a pyenv machine the shim note is a detail, said with --verbose.
"""
import hashlib
import os
from pathlib import Path

import lotest
from test_hosts_shims import extension_module, pyenv_like
from test_origin import state_of

CMAKE_A = """cmake_minimum_required(VERSION 3.18)
project(own C)
add_library(core SHARED core.c)
set_target_properties(core PROPERTIES VERSION 1.0 SOVERSION 1)
add_library(extra MODULE extra.c)
"""
# branch b: the SOVERSION bump, and the module dropped
CMAKE_B = """cmake_minimum_required(VERSION 3.18)
project(own C)
add_library(core SHARED core.c)
set_target_properties(core PROPERTIES VERSION 2.0 SOVERSION 2)
"""
# the project's own rule file: vendored binaries are none of leftover's business
RULES = "[candidates]\n\texclude = vendor\n"
BROKEN_C = "int gone(void); int vendor(void){return gone();}"
STALE = ["libcore.so.1.0", "libextra.so"]


def make_repo(d, rule_file):
    """A repository at d: branch a, then branch b (checked out), as above."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "core.c").write_text("int core(void){return 1;}\n")
    (d / "extra.c").write_text("int extra(void){return 2;}\n")
    (d / "CMakeLists.txt").write_text(CMAKE_A)
    if rule_file:
        (d / ".leftover").write_text(RULES)
    lotest.git(d, "init", "-q", "-b", "a")
    lotest.git(d, "add", ".")
    lotest.git(d, "commit", "-q", "-m", "a: core 1.0 and the extra module")
    lotest.git(d, "checkout", "-q", "-b", "b")
    (d / "CMakeLists.txt").write_text(CMAKE_B)
    lotest.git(d, "commit", "-q", "-am", "b: core 2.0, no extra module")
    return d


def built_on_both(d, build, rule_file):
    """The repository built into `build` on branch a, then on branch b."""
    make_repo(d, rule_file)
    lotest.git(d, "checkout", "-q", "a")
    lotest.cmake_build(d, build)
    lotest.git(d, "checkout", "-q", "b")
    lotest.cmake_build(d, build)


def listing(tree):
    """Every path under tree but .git's, relative."""
    out = set()
    for dirpath, dirs, files in os.walk(tree):
        dirs[:] = [x for x in dirs if x != ".git"]
        for name in dirs + files:
            out.add(str((Path(dirpath) / name).relative_to(tree)))
    return out


def identity(p):
    """What restore must give back: a link's text, or a file's bytes, mode and mtime."""
    st = os.lstat(p)
    if p.is_symlink():
        return ("link", os.readlink(p), st.st_mode)
    return ("file", hashlib.sha256(p.read_bytes()).hexdigest(), st.st_mode, st.st_mtime_ns)


def test_in_source_tree_scans_explains_and_cleans_twice():
    d = lotest.workdir("own-insource") / "src"
    built_on_both(d, d, rule_file=True)
    lotest.cc(d / "vendor" / "libvendor.so", BROKEN_C)  # broken, but the rule file says skip
    (d / "vendor" / "libvendor_so.c").unlink()
    before = listing(d)
    assert not any(p.startswith(".cmake/api") for p in before), sorted(before)

    for _ in range(2):
        r = lotest.scan(d)
        assert r.rc == 1, r
        assert lotest.stale_paths(r) == sorted(STALE), r
        assert "vendor/libvendor.so" not in r.files, r  # the project's .leftover was read
    # the scan wrote nothing but CMake's File API query into the tree
    new = listing(d) - before
    query = {".cmake", ".cmake/api", ".cmake/api/v1", ".cmake/api/v1/query"}
    assert new and all(p in query or p.startswith(".cmake/api/v1/query/") for p in new), \
        sorted(new)
    # its record is in the user's cache
    assert state_of(d).exists()
    assert (d / ".leftover").read_text() == RULES

    for _ in range(2):
        e = lotest.leftover("explain", d / "libextra.so")
        assert e.returncode == 1, (e.stdout, e.stderr)
        assert "verdict: stale" in e.stdout, e.stdout

    first = lotest.leftover("clean", d)
    assert first.returncode == 0 and "moved 2 files" in first.stdout, (first.stdout, first.stderr)
    again = lotest.leftover("clean", d)
    assert again.returncode == 0 and again.stdout == "nothing to clean\n", \
        (again.stdout, again.stderr)
    assert (d / ".leftover").read_text() == RULES
    assert (d / ".leftover.d" / ".gitignore").read_text().splitlines()[-1] == "*"
    status = lotest.git(d, "status", "--porcelain", "--untracked-files=all")
    assert ".leftover" not in status, status
    lotest.assert_stale_not_rebuilt(r, d, [lotest.CMAKE, "--build", d])


def test_in_source_trees_of_the_other_generators():
    # Ninja Multi-Config stales both by its log, in the configuration's own
    # dir; a Unix Makefiles tree keeps no record of what a live target
    # stopped making (libcore.so.1.0 stays unknown), only the dropped
    # module's clean list
    for generator, stale in (("Ninja Multi-Config", ["Debug/libcore.so.1.0", "Debug/libextra.so"]),
                             ("Unix Makefiles", ["libextra.so"])):
        d = lotest.workdir("own-insource-" + generator.replace(" ", "-").lower()) / "src"
        make_repo(d, rule_file=True)
        for branch in ("a", "b"):
            lotest.git(d, "checkout", "-q", branch)
            lotest.cmake_build(d, d, generator=generator)
        for _ in range(2):
            r = lotest.scan(d)
            assert r.rc == 1 and lotest.stale_paths(r) == stale, (generator, r)
            e = lotest.leftover("explain", d / stale[-1])
            assert e.returncode == 1 and "verdict: stale" in e.stdout, (generator, e.stdout, e.stderr)
        for _ in range(2):
            c = lotest.leftover("clean", d)
            assert c.returncode == 0, (generator, c.stdout, c.stderr)
        assert (d / ".leftover").read_text() == RULES
        lotest.assert_stale_not_rebuilt(r, d, [lotest.CMAKE, "--build", d])


def test_clean_at_a_checkout_root_leaves_the_trees_below_scannable():
    d = lotest.workdir("own-checkout-root") / "src"
    built_on_both(d, d / "build-x", rule_file=False)
    r = lotest.scan(d / "build-x")
    assert r.rc == 1 and lotest.stale_paths(r) == sorted(STALE), r
    c = lotest.leftover("clean", d)
    assert c.returncode in (0, 1), (c.stdout, c.stderr)
    assert not (d / ".leftover").exists()
    for _ in range(2):
        again = lotest.scan(d / "build-x")
        assert again.rc == 0 and not lotest.stale_paths(again), again
    status = lotest.git(d, "status", "--porcelain", "--untracked-files=all")
    assert ".leftover" not in status, status
    assert lotest.leftover("restore", d).returncode == 0
    lotest.assert_stale_not_rebuilt(r, d / "build-x", [lotest.CMAKE, "--build", d / "build-x"])


def test_soversion_bump_clean_takes_the_link_and_restore_gives_both_back():
    d = lotest.workdir("own-soversion")
    src, build = d / "src", d / "build"
    built_on_both(src, build, rule_file=True)
    chain = ["libcore.so.1", "libcore.so.1.0"]
    assert os.readlink(build / "libcore.so.1") == "libcore.so.1.0"
    want = {name: identity(build / name) for name in chain}
    r = lotest.scan(build)
    assert r.rc == 1 and lotest.stale_paths(r) == sorted(STALE), r

    c = lotest.leftover("clean", "--verbose", build)
    assert c.returncode == 0, (c.stdout, c.stderr)
    assert "moved libcore.so.1: a link to libcore.so.1.0" in c.stdout, c.stdout
    for name in chain:
        assert not (build / name).is_symlink() and not (build / name).exists(), name
    # the live chain stays
    assert os.readlink(build / "libcore.so") == "libcore.so.2"
    assert os.readlink(build / "libcore.so.2") == "libcore.so.2.0"
    after = lotest.scan(build)
    assert after.rc == 0 and not [f for f in after.doc["files"] if f["verdict"] != "ok"], after
    n = lotest.run(["ninja", "-n"], cwd=build)
    assert "ninja: no work to do." in n.stdout, n.stdout

    back = lotest.leftover("restore", "--verbose", build)
    assert back.returncode == 0 and "restored 3 files" in back.stdout, (back.stdout, back.stderr)
    assert {name: identity(build / name) for name in chain} == want

    # a link the current build makes stays, even when it leads to the file
    (build / "libcore.so").unlink()
    (build / "libcore.so").symlink_to("libcore.so.1.0")
    dry = lotest.leftover("clean", "--dry-run", build)
    assert "would move libcore.so.1: a link to libcore.so.1.0" in dry.stdout, dry.stdout
    assert "would move libcore.so:" not in dry.stdout, dry.stdout
    (build / "libcore.so").unlink()
    (build / "libcore.so").symlink_to("libcore.so.2")
    lotest.assert_stale_not_rebuilt(r, build, [lotest.CMAKE, "--build", build])


def test_a_quarantine_of_leftover_0_1_is_still_restored():
    """Sets that leftover 0.1 left in BUILD/.leftover/quarantine: restore finds them."""
    d = lotest.workdir("own-old-quarantine")
    src, build = d / "src", d / "build"
    built_on_both(src, build, rule_file=False)
    assert lotest.leftover("clean", build).returncode == 0
    (build / ".leftover").mkdir()
    (build / ".leftover.d" / "quarantine").rename(build / ".leftover" / "quarantine")
    (stamp,) = [p.name for p in (build / ".leftover" / "quarantine").iterdir()]
    assert lotest.leftover("restore", "--list", build).stdout.split() == [stamp]
    r = lotest.scan(build)  # an old .leftover directory is no rule file, nor a candidate
    assert r.rc == 0, r
    back = lotest.leftover("restore", build)
    assert back.returncode == 0 and "restored 3 files from %s" % stamp in back.stdout, back
    assert os.readlink(build / "libcore.so.1") == "libcore.so.1.0"
    assert lotest.scan(build).rc == 1


def test_the_shim_note_is_said_with_verbose_only():
    work = lotest.workdir("own-shim-note")
    shim_py = pyenv_like(work / "shims")
    tree = work / "tree"
    module = extension_module(tree)
    lotest.cc(tree / "libbroken.so", BROKEN_C)  # a finding, so that notes are printed
    env = {"PATH": "%s:%s" % (shim_py.parent, os.environ["PATH"])}
    text = lotest.leftover("scan", tree, env=env)
    assert text.returncode == 1 and "libbroken.so: broken" in text.stdout, text
    assert "not an ELF program" not in text.stdout, text.stdout
    verbose = lotest.leftover("scan", "--verbose", tree, env=env)
    assert "note: '%s' is not an ELF program" % shim_py in verbose.stdout, verbose.stdout
    # a document holds everything
    r = lotest.scan(tree, env=env)
    assert any(str(shim_py) in n for n in r.doc["notes"]), r.doc["notes"]
    e = lotest.leftover("explain", module, env=env)
    assert "not an ELF program" not in e.stderr, e.stderr


if __name__ == "__main__":
    lotest.main(globals())
