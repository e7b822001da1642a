"""A hand-written Makefile, built on two branches in one tree (issue 43).

branch-a's Makefile builds libfoo.so and libbar.so, branch-b's only
libfoo.so; after `make` on both, libbar.so stays behind. A hand-written
Makefile keeps no record of what it built, so staleness is not judged:
nothing is called stale, and the text output says so once for the tree
(not once per file), even though nothing else is reported.
"""
import lotest

MAKEFILE = """LIBS = {libs}
all: $(LIBS)
lib%.so: %.c
\tcc -shared -fPIC -o $@ $<
"""


def test_no_records_said_once():
    d = lotest.workdir("hand-makefile")
    lotest.git(d, "init", "-q", "-b", "branch-a")
    (d / ".gitignore").write_text("*.so\n")
    (d / "Makefile").write_text(MAKEFILE.format(libs="libfoo.so libbar.so libbaz.so"))
    for name in ("foo", "bar", "baz"):
        (d / (name + ".c")).write_text("int %s(void) { return 1; }\n" % name)
    lotest.git(d, "add", "-A")
    lotest.git(d, "commit", "-q", "-m", "a")
    lotest.run(["make", "-s"], cwd=d)
    lotest.git(d, "checkout", "-q", "-b", "branch-b")
    (d / "Makefile").write_text(MAKEFILE.format(libs="libfoo.so"))
    lotest.git(d, "commit", "-q", "-a", "-m", "b: only foo")
    lotest.run(["make", "-s"], cwd=d)

    r = lotest.scan(d)
    assert r.rc == 0 and not lotest.stale_paths(r), r
    assert all(f["orphan"] is None for f in r.doc["files"]), r
    assert r.doc["build_trees"] == [{"dir": str(d), "system": "make", "records": None, "withheld": False}], r.doc
    lotest.assert_stale_not_rebuilt(r, d, ["make", "-s"])

    t = lotest.leftover("scan", d)
    assert t.returncode == 0, t
    line = "tree %s: staleness not judged: no build records" % d
    assert t.stdout.count(line) == 1 and t.stdout.count("not judged") == 1, t.stdout


if __name__ == "__main__":
    lotest.main(globals())
