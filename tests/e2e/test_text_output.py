"""The text report as a person reads it in a terminal.

C++ symbols are shown demangled (with the mangled name beside them, which
is what nm and the loader print); colour appears on a terminal only, and
never with NO_COLOR; a clean tree prints nothing.
"""
import os
import pty
import subprocess

import lotest


def cxx_tree():
    d = lotest.workdir("text-cxx")
    (d / "dep.cpp").write_text("namespace mlir { int registerAll(int n) { return n; } }\n")
    (d / "user.cpp").write_text("namespace mlir { int registerAll(int); }\n"
                                "int use() { return mlir::registerAll(3); }\n")
    lotest.run(["g++", "-shared", "-fPIC", "-o", d / "libdep.so", d / "dep.cpp"])
    lotest.run(["g++", "-shared", "-fPIC", "-o", d / "libuser.so", d / "user.cpp",
                "-L", d, "-ldep", "-Wl,-rpath,$ORIGIN"])
    # the dependency rebuilt without the function
    (d / "dep.cpp").write_text("namespace mlir { int other() { return 0; } }\n")
    lotest.run(["g++", "-shared", "-fPIC", "-o", d / "libdep.so", d / "dep.cpp"])
    return d


def on_terminal(args, env=None):
    """Run leftover with stdout on a pseudo-terminal; its output as text."""
    master, slave = pty.openpty()
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    p = subprocess.Popen([lotest.LEFTOVER] + [str(a) for a in args], stdout=slave,
                         stderr=subprocess.DEVNULL, env=e)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:
            break
        if not b:
            break
        chunks.append(b)
    p.wait()
    os.close(master)
    return p.returncode, b"".join(chunks).decode()


def test_cxx_symbol_is_demangled():
    d = cxx_tree()
    p = lotest.leftover("scan", d)
    assert p.returncode == 1, p
    assert "libuser.so: broken" in p.stdout, p.stdout
    assert "undefined symbol: mlir::registerAll(int) (_ZN4mlir11registerAllEi)" in p.stdout, p.stdout


def test_colour_on_a_terminal_only():
    d = cxx_tree()
    rc, out = on_terminal(["scan", d])
    assert rc == 1 and "\033[" in out and "broken" in out, repr(out)
    piped = lotest.leftover("scan", d)
    assert "\033[" not in piped.stdout, repr(piped.stdout)


def test_no_color_turns_colour_off_on_a_terminal():
    d = cxx_tree()
    rc, out = on_terminal(["scan", d], env={"NO_COLOR": "1"})
    assert rc == 1 and "broken" in out and "\033[" not in out, repr(out)


def test_clean_tree_prints_nothing():
    d = lotest.workdir("text-clean")
    lotest.cc(d / "libok.so", "int ok(void){return 0;}")
    p = lotest.leftover("scan", d)
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", p


def host_tree():
    """exe needs libl.so beside it (RUNPATH $ORIGIN); plugins/ has one plain library."""
    d = lotest.workdir("text-host")
    lotest.cc(d / "libl.so", "int l(void) { return 0; }\n")
    lotest.cc(d / "exe", "int l(void);\nint main(void) { return l(); }\n",
              "-L", d, "-ll", "-Wl,-rpath,$ORIGIN", shared=False)
    lotest.cc(d / "plugins" / "libplugin.so", "int plugin(void) { return 1; }\n")
    return d


def test_host_that_cannot_load_is_one_line_each():
    d = host_tree()
    (d / "libl.so").rename(d / "libl.so.gone")
    p = lotest.leftover("scan", "--host", d / "exe", d / "plugins")
    assert p.returncode == 1, p
    lines = p.stdout.splitlines()
    # the reason and the note each whole on their line, the paths tried among them
    assert "\\n" not in p.stdout, p.stdout
    (reason,) = [x for x in lines if x.startswith("    no-host: ")]
    assert "libl.so: not found; tried: " + str(d / "libl.so") in reason, reason
    assert reason.endswith("(the program named with --host)"), reason
    (note,) = [x for x in lines if x.startswith("note: ")]
    assert note.endswith("(the program named with --host); the files it would load are unjudged"), note
    assert lines == ["libplugin.so: unjudged (shared-library)", reason, note,
                     "1 file: 0 ok, 0 broken, 0 stale, 0 unreadable, 0 skipped, "
                     "1 unjudged (host not usable)"], lines


def test_summary_counts_in_plural_past_one():
    d = host_tree()
    p = lotest.leftover("scan", "--verbose", "--host", d / "exe", d)
    assert p.returncode == 0, p
    assert p.stdout.splitlines()[-1] == "2 files: 2 ok, 0 broken, 0 stale, 0 unreadable, 0 skipped", \
        p.stdout


def test_explain_of_a_library_the_host_already_loaded():
    # dlopen of the host's own libl.so maps nothing: the loader returns the one it has
    d = host_tree()
    p = lotest.leftover("explain", "--verbose", "--host", d / "exe", d / "libl.so")
    assert p.returncode == 0, p
    lines = p.stdout.splitlines()
    at = lines.index("libraries:")
    assert lines[at + 1] == "  %s (already loaded)" % (d / "libl.so"), p.stdout


if __name__ == "__main__":
    lotest.main(globals())
