"""Tcl C extensions under the default rules (rules/tcl.rules).

An extension built without Tcl's stubs leaves Tcl_* undefined: the tclsh
that `load`s it provides them. leftover knows one by what it needs and
judges it from tclsh; one built with stubs (Debian's itcl, thread, tls,
tclsqlite3) needs nothing of Tcl and is judged as any C library. Truth:
`load PATH` in a real tclsh, one per file (Tcl's own dlopen takes
RTLD_NOW); a file that loads but has no init function of the name `load`
guesses from its file name counts as loaded. Debian's tcl8.6 and the
extension packages are installed by the test when missing.
"""
import shutil

import lotest

TCL = "extern int Tcl_PkgProvide(void *, const char *, const char *);\n"
LOAD = ("if {[catch {load $env(LEFTOVER_PROBE_PATH)} e]} {puts -nonewline $e; exit 1}\n"
        "puts -nonewline ok\n")


def tcl_load(tclsh, paths):
    """What tclsh says to `load PATH`, for each path: "ok" or "error MSG"."""
    out = []
    for p in paths:
        r = lotest.run([tclsh], input=LOAD, check=False, timeout=30,
                       env={"LEFTOVER_PROBE_PATH": str(p)})
        loaded = r.stdout == "ok" or "couldn't load file" not in r.stdout
        out.append("ok" if loaded else "error " + r.stdout)
    return out


def test_tcl_extensions_are_judged_from_tclsh():
    tclsh = lotest.need("tclsh8.6", "tcl8.6")
    for lib, package in (("/usr/lib/x86_64-linux-gnu/libitcl4.2.3.so", "tcl-itcl4"),
                         ("/usr/lib/tcltk/sqlite3/libtclsqlite3.so", "libsqlite3-tcl"),
                         ("/usr/lib/tcltk/x86_64-linux-gnu/thread2.8.8/libthread2.8.8.so",
                          "tcl-thread")):
        lotest.need(lib, package)
    tree = lotest.workdir("rules-tcl") / "tree"
    # without stubs: one that uses what tclsh has, one that also needs what it has not
    lotest.cc(tree / "good.so", TCL + "int Good_Init(void *interp) {\n"
              "  return Tcl_PkgProvide(interp, \"good\", \"1.0\"); }\n")
    lotest.cc(tree / "bad.so", TCL + "extern int Tcl_NotInTcl(void *);\n"
              "int Bad_Init(void *interp) { Tcl_NotInTcl(interp);\n"
              "  return Tcl_PkgProvide(interp, \"bad\", \"1.0\"); }\n")
    rels = ["good.so", "bad.so"]
    # what makes them tclsh's: from a C program they do not load
    plain = lotest.dlopen([tree / p for p in rels])
    assert all("undefined symbol: Tcl_" in a for a in plain), plain
    truth = tcl_load(tclsh, [tree / p for p in rels])
    assert truth[0] == "ok" and "Tcl_NotInTcl" in truth[1], truth
    r = lotest.scan(tree)
    lotest.assert_hosted(r, rels, truth, "tcl", tclsh, "Tcl_NotInTcl")
    assert r.rc == 1, r

    # Debian's own extensions, with stubs (itcl's beside the others: it lives
    # in /usr/lib/x86_64-linux-gnu, whose scan is another test's)
    debian = tree.parent / "tcltk"
    shutil.copytree("/usr/lib/tcltk", debian)
    shutil.copy("/usr/lib/x86_64-linux-gnu/libitcl4.2.3.so", debian)
    r = lotest.scan(debian)
    files = {debian / p: f for p, f in r.files.items()}
    truth = tcl_load(tclsh, files)
    agree = [p for p, t in zip(files, truth) if files[p]["loads"] is (t == "ok")]
    assert len(agree) == len(files) >= 3, (
        "%d/%d agree" % (len(agree), len(files)),
        [(p, files[p]["verdict"], t) for p, t in zip(files, truth) if p not in agree])
    print("Tcl extensions: %d/%d agree with load" % (len(agree), len(files)))

    # a machine without tclsh: the scan goes on, and the rule's provides stand in
    lotest.assert_provides_stand_in(tree, rels, "tcl")


if __name__ == "__main__":
    lotest.main(globals())
