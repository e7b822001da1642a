"""autotools + libtool, built for real on two branches in one tree (issue 43).

branch-a builds two libtool modules (mod_a, mod_x) and a versioned library
(libcore); branch-b drops mod_x from Makefile.am and deletes its source. The
tree is configured and built in place on branch-a (`autoreconf -fi &&
./configure && make`), then `git checkout branch-b && make`: automake's
rebuild rules regenerate the Makefile, and mod_x.la with .libs/mod_x.so stay
behind. leftover reads config.status, the generated Makefile's
*_LTLIBRARIES and the libtool archives, never running make, and calls
exactly those stale; the rebuild holds each verdict (it does not make them
again). Until `make` has regenerated the Makefile, its lists are branch-a's
and nothing is called stale.
"""
import lotest

CONFIGURE_AC = """AC_INIT([lt], [1.0])
AM_INIT_AUTOMAKE([foreign subdir-objects])
LT_INIT([disable-static])
AC_PROG_CC
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
"""

MAKEFILE_AM = """pkglib_LTLIBRARIES = mod_a.la{x}
mod_a_la_SOURCES = mod_a.c
mod_a_la_LDFLAGS = -module -avoid-version
{x_rules}lib_LTLIBRARIES = libcore.la
libcore_la_SOURCES = core.c
libcore_la_LDFLAGS = -version-info 1:0:0
"""

X_RULES = """mod_x_la_SOURCES = mod_x.c
mod_x_la_LDFLAGS = -module -avoid-version
"""

STALE = [".libs/mod_x.la", ".libs/mod_x.lai", ".libs/mod_x.so", "mod_x.la"]
LIVE = [".libs/mod_a.so", ".libs/libcore.so.1.0.0"]

_tree = {}


def tree():
    """The project, built on branch-a and scanned there, then checked out at branch-b."""
    if _tree:
        return _tree["src"]
    d = lotest.workdir("autotools")
    src = d / "p"
    src.mkdir()
    lotest.git(src, "init", "-q", "-b", "branch-a")
    (src / "configure.ac").write_text(CONFIGURE_AC)
    (src / "Makefile.am").write_text(MAKEFILE_AM.format(x=" mod_x.la", x_rules=X_RULES))
    (src / "mod_a.c").write_text("int mod_a(void) { return 1; }\n")
    (src / "mod_x.c").write_text("int mod_x(void) { return 2; }\n")
    (src / "core.c").write_text("int core(void) { return 3; }\n")
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-q", "-m", "a")
    lotest.git(src, "checkout", "-q", "-b", "branch-b")
    (src / "Makefile.am").write_text(MAKEFILE_AM.format(x="", x_rules=""))
    lotest.git(src, "rm", "-q", "mod_x.c")
    lotest.git(src, "commit", "-q", "-a", "-m", "b: mod_x dropped")
    lotest.git(src, "checkout", "-q", "branch-a")
    lotest.run(["autoreconf", "-fi"], cwd=src)
    lotest.run(["./configure", "-q"], cwd=src)
    lotest.run(["make", "-j2"], cwd=src)

    # built at branch-a: everything is live, nothing stale
    r = lotest.scan(src)
    assert r.rc == 0, r
    for rel in LIVE + [".libs/mod_x.so"]:
        assert r.file(rel)["orphan"] is False, r.file(rel)
    _tree["src"] = src
    lotest.git(src, "checkout", "-q", "branch-b")
    return src


def test_not_rebuilt_yet_withholds():
    """branch-b checked out, make not run: the Makefile is older than Makefile.am, so
    its lists are branch-a's; nothing is stale and a note says to build first."""
    src = tree()
    r = lotest.scan(src)
    assert not lotest.stale_paths(r), r
    assert r.file(".libs/mod_x.so")["orphan"] is None, r.file(".libs/mod_x.so")
    assert any("build description changed" in n and "Makefile.am" in n and "build first" in n
               for n in r.doc["notes"]), r.doc["notes"]
    assert [t["withheld"] for t in r.doc["build_trees"]] == [True], r.doc["build_trees"]


def test_dropped_module_stale():
    src = tree()
    lotest.run(["make", "-j2"], cwd=src)
    assert (src / ".libs" / "mod_x.so").exists(), "make removed the dropped module; nothing to test"
    r = lotest.scan(src)
    assert r.rc == 1, r
    assert lotest.stale_paths(r) == STALE, r
    for rel in STALE:
        ev = [x for x in r.reasons(rel, "orphan")]
        assert ev and ev[0]["evidence"] == "libtool-archive" and "mod_x.la" in ev[0]["detail"], ev
    for rel in LIVE:
        assert r.file(rel)["orphan"] is False and r.file(rel)["verdict"] == "ok", r.file(rel)
    trees = r.doc["build_trees"]
    assert [t["system"] for t in trees] == ["autotools"] and trees[0]["records"], trees

    t = lotest.leftover("scan", src)
    assert t.returncode == 1, t
    assert "tree %s (autotools): staleness from" % src in t.stdout, t.stdout
    assert "not judged" not in t.stdout, t.stdout


def test_explain_libtool_archive():
    """explain of a .la explains the object it names, never 'not an ELF file'."""
    src = tree()
    lotest.run(["make", "-j2"], cwd=src)
    x = lotest.leftover("explain", src / "mod_x.la")
    assert x.returncode == 1, x
    assert "libtool archive" in x.stdout and str(src / ".libs" / "mod_x.so") in x.stdout, x.stdout
    assert "still built: no (evidence libtool-archive" in x.stdout, x.stdout
    a = lotest.leftover("explain", src / "mod_a.la")
    assert a.returncode == 0, a
    assert "still built: yes" in a.stdout, a.stdout


def test_clean_then_rebuild():
    """clean moves the dropped module (not 'still built'); the next scan is clean;
    after restore, the rebuild holds every stale verdict."""
    src = tree()
    lotest.run(["make", "-j2"], cwd=src)
    c = lotest.leftover("clean", src)
    assert c.returncode == 0, c
    assert "still built" not in c.stdout + c.stderr, c
    assert not (src / ".libs" / "mod_x.so").exists(), c.stdout
    after = lotest.scan(src)
    assert after.rc == 0 and not lotest.stale_paths(after), after
    lotest.run(["make", "-j2"], cwd=src)
    assert not (src / ".libs" / "mod_x.so").exists(), "make rebuilt what clean moved"
    assert lotest.leftover("restore", src).returncode == 0
    r = lotest.scan(src)
    assert lotest.stale_paths(r) == STALE, r
    lotest.assert_stale_not_rebuilt(r, src, ["make"])


if __name__ == "__main__":
    lotest.main(globals())
