"""The loader's features, one scenario each, against the real loader.

Each test builds a small tree of objects with lotest.cc, the shape of one
thing ld.so does (the shapes of libtree's test suite, written afresh): a
host program's start (its libraries, symbol versions and symbols bound at
start, its interpreter), $ORIGIN from a symlink's own directory, DT_RPATH
inherited down the chain where DT_RUNPATH is not, RPATH directories in
order, -z nodefaultlib. leftover's answer is held against what glibc does
with the same files: the program run (LD_BIND_NOW=1), or dlopen() of every
object path in a forked child (lotest.dlopen), with `explain` agreeing.
"""
import lotest

# A plugin any host could load: libc alone.
PLUGIN = "int plugin(void) { return 1; }\n"


def run_program(exe):
    """The program run as ld.so starts it with every symbol bound (LD_BIND_NOW)."""
    return lotest.run([exe], check=False, env={"LD_BIND_NOW": "1"})


def assert_host_unusable(d, exe, why):
    """The real program fails to start saying `why`; leftover judges none of its files from it."""
    p = run_program(exe)
    assert p.returncode != 0 and why in p.stderr, (p.returncode, p.stderr)
    r = lotest.scan(d / "plugins", args=["--host", exe])
    assert r.rc == 1, r
    f = r.file("libplugin.so")
    assert f["loads"] is None and f["verdict"] == "unjudged", f
    (reason,) = r.reasons("libplugin.so", "no-host")
    assert why in reason["detail"] and str(exe) in reason["detail"], reason
    # explain of the program itself judges its start, and names what stops it
    e = lotest.leftover("explain", exe)
    assert e.returncode == 1 and "result: would not start\n" in e.stdout, e.stdout
    return r, e.stdout


def assert_host_usable(d, exe):
    p = run_program(exe)
    assert p.returncode == 0, p.stderr
    r = lotest.scan(d / "plugins", args=["--host", exe])
    assert r.rc == 0, r
    assert r.file("libplugin.so")["verdict"] == "ok", r
    e = lotest.leftover("explain", exe)
    assert e.returncode == 0 and "verdict: ok: it would start" in e.stdout, e.stdout


def test_host_needs_a_symbol_version_its_library_lost():
    # libv.so defines VER_1 and VER_2; exe_v2 binds v2@VER_2, exe_v1 only
    # v1@VER_1. Rebuilt with VER_1 alone, exe_v2 no longer starts.
    d = lotest.workdir("versions")
    lib = "int v1(void) { return 1; }\nint v2(void) { return 2; }\n"
    (d / "both.map").write_text("VER_1 { global: v1; local: *; };\nVER_2 { global: v2; } VER_1;\n")
    (d / "one.map").write_text("VER_1 { global: v1; local: *; };\n")
    lotest.cc(d / "libv.so", lib, "-Wl,--version-script=" + str(d / "both.map"))
    for name, call in (("exe_v1", "v1()"), ("exe_v2", "v2()")):
        lotest.cc(d / name, "int v1(void); int v2(void);\nint main(void) { return %s - %s; }\n"
                  % (call, call), "-L", d, "-lv", "-Wl,-rpath,$ORIGIN", shared=False)
    lotest.cc(d / "plugins" / "libplugin.so", PLUGIN)
    assert_host_usable(d, d / "exe_v2")
    lotest.cc(d / "libv.so", "int v1(void) { return 1; }\n",
              "-Wl,--version-script=" + str(d / "one.map"))
    r, why = assert_host_unusable(d, d / "exe_v2", "version `VER_2' not found")
    assert str(d / "libv.so") in r.reasons("libplugin.so", "no-host")[0]["detail"], r
    assert "  version VER_2 of %s not found, needed by exe_v2\n" % (d / "libv.so") in why, why
    assert_host_usable(d, d / "exe_v1")


def test_host_needs_a_symbol_its_library_lost():
    # exe_s calls gone() from libs.so; rebuilt without it, the program stops
    # at start when every symbol is bound then (LD_BIND_NOW).
    d = lotest.workdir("symbols")
    lotest.cc(d / "libs.so", "int kept(void) { return 0; }\nint gone(void) { return 0; }\n")
    lotest.cc(d / "exe_s", "int kept(void); int gone(void);\n"
              "int main(int argc, char **argv) { (void)argv; return argc > 5 ? gone() : kept(); }\n",
              "-L", d, "-ls", "-Wl,-rpath,$ORIGIN", shared=False)
    lotest.cc(d / "plugins" / "libplugin.so", PLUGIN)
    assert_host_usable(d, d / "exe_s")
    lotest.cc(d / "libs.so", "int kept(void) { return 0; }\n")
    _, why = assert_host_unusable(d, d / "exe_s", "undefined symbol: gone")
    assert "  undefined symbol gone, needed by exe_s\n" in why, why


def test_host_needs_a_library_that_is_gone():
    # The failure already caught before: the same reason, the same shape.
    d = lotest.workdir("libraries")
    lotest.cc(d / "libl.so", "int l(void) { return 0; }\n")
    lotest.cc(d / "exe_l", "int l(void);\nint main(void) { return l(); }\n",
              "-L", d, "-ll", "-Wl,-rpath,$ORIGIN", shared=False)
    lotest.cc(d / "plugins" / "libplugin.so", PLUGIN)
    assert_host_usable(d, d / "exe_l")
    (d / "libl.so").unlink()
    _, why = assert_host_unusable(d, d / "exe_l", "libl.so")
    assert "  library libl.so not found, needed by exe_l\n" in why, why


def test_program_whose_interpreter_is_not_there():
    # the kernel maps PT_INTERP before anything: a program naming a loader
    # that is not installed does not start at all
    d = lotest.workdir("interp")
    exe = lotest.cc(d / "exe_i", "int main(void) { return 0; }\n",
                    "-Wl,--dynamic-linker=/nonexistent/ld-linux.so.2", shared=False)
    try:
        started = lotest.run([exe], check=False).returncode == 0
    except OSError:
        started = False
    assert not started
    e = lotest.leftover("explain", exe)
    assert e.returncode == 1, e.stdout
    assert "  library /nonexistent/ld-linux.so.2 not found, needed by exe_i\n" in e.stdout, e.stdout


def so_paths(root):
    """Every path under root the loader could be asked to open: objects and links to them."""
    return sorted(p for p in root.rglob("*.so") if p.is_file())


def assert_agrees_from(root, start):
    """A scan from `start` reports each object path under it, links included,
    with the outcome dlopen() has for that path in a child; explain agrees."""
    r = lotest.scan(start)
    assert r.rc in (0, 1), r
    paths = [p for p in so_paths(root) if start in p.parents]
    truth = lotest.dlopen(paths)
    for p, answer in zip(paths, truth):
        f = r.file(p.relative_to(start))
        assert f["loads"] is (answer == "ok"), (p, answer, f)
        e = lotest.leftover("explain", p)
        assert e.returncode == (0 if answer == "ok" else 1), (p, answer, e.stdout)
    return r


def test_origin_is_the_links_directory_not_its_targets():
    # b/libg.so -> ../a/libg.so, whose RUNPATH is $ORIGIN: libf.so is only in
    # a/, and opened as b/libg.so, $ORIGIN is b/.
    d = lotest.workdir("origin-link")
    lotest.cc(d / "a" / "libf.so", "int f(void) { return 0; }\n")
    lotest.cc(d / "a" / "libg.so", "int f(void);\nint g(void) { return f(); }\n",
              "-L", d / "a", "-lf", "-Wl,-rpath,$ORIGIN")
    (d / "b").mkdir()
    (d / "b" / "libg.so").symlink_to("../a/libg.so")
    # a link beside its target is that file again: reported once, by the target
    (d / "a" / "libf.so.1").symlink_to("libf.so")
    assert lotest.dlopen([d / "b" / "libg.so"])[0].startswith("error libf.so: cannot open")
    r = assert_agrees_from(d, d)
    assert r.file("b/libg.so")["target"] == str(d / "a" / "libg.so"), r
    assert [x["library"] for x in r.reasons("b/libg.so", "missing-library")] == ["libf.so"], r
    assert "a/libf.so.1" not in r.files, r
    (note,) = [n for n in r.doc["notes"] if "a link to" in n]
    assert note.startswith("%s/b/libg.so, a link to %s/a/libg.so, does not load" % (d, d)), note
    # from b/ alone, the same answer
    r = assert_agrees_from(d, d / "b")
    assert r.file("libg.so")["verdict"] == "broken", r


def test_rpath_is_inherited_down_the_chain_runpath_is_not():
    # top needs mid, mid needs deep; only top names where deep is. As DT_RPATH
    # that serves mid's search too; as DT_RUNPATH only top's own.
    d = lotest.workdir("inherit")
    for tags, sub in (("--disable-new-dtags", "rpath"), ("--enable-new-dtags", "runpath")):
        t = d / sub
        lotest.cc(t / "deep" / "libdeep.so", "int deep(void) { return 0; }\n")
        lotest.cc(t / "mid" / "libmid.so", "int deep(void);\nint mid(void) { return deep(); }\n",
                  "-L", t / "deep", "-ldeep")
        lotest.cc(t / "libtop.so", "int mid(void);\nint top(void) { return mid(); }\n",
                  "-L", t / "mid", "-lmid", "-Wl,-rpath-link," + str(t / "deep"),
                  "-Wl," + tags + ",-rpath,$ORIGIN/mid:$ORIGIN/deep")
    r = assert_agrees_from(d, d)
    assert r.file("rpath/libtop.so")["verdict"] == "ok", r
    assert [x["library"] for x in r.reasons("runpath/libtop.so", "missing-library")] == \
        ["libdeep.so"], r


def test_rpath_directories_in_their_order():
    # x/ and y/ both hold libo.so; y's lacks o2. The first directory wins.
    d = lotest.workdir("order")
    lotest.cc(d / "x" / "libo.so", "int o1(void) { return 1; }\nint o2(void) { return 2; }\n")
    lotest.cc(d / "y" / "libo.so", "int o1(void) { return 1; }\n")
    for name, dirs in (("libxy.so", "$ORIGIN/x:$ORIGIN/y"), ("libyx.so", "$ORIGIN/y:$ORIGIN/x")):
        lotest.cc(d / name, "int o2(void);\nint use(void) { return o2(); }\n",
                  "-L", d / "x", "-lo", "-Wl,--disable-new-dtags,-rpath," + dirs)
    r = assert_agrees_from(d, d)
    assert r.file("libxy.so")["verdict"] == "ok", r
    assert [x["symbol"] for x in r.reasons("libyx.so", "undefined-symbol")] == ["o2"], r


def test_nodefaultlib_skips_the_cache_and_default_directories():
    # libm is found by ld.so.cache and the default directories, which
    # -z nodefaultlib forbids
    d = lotest.workdir("nodeflib")
    src = "double cos(double);\ndouble f(double x) { return cos(x); }\n"
    lotest.cc(d / "libplain.so", src, "-Wl,--no-as-needed", "-lm")
    lotest.cc(d / "libnodef.so", src, "-Wl,--no-as-needed", "-lm", "-Wl,-z,nodefaultlib")
    r = assert_agrees_from(d, d)
    assert r.file("libplain.so")["verdict"] == "ok", r
    assert [x["library"] for x in r.reasons("libnodef.so", "missing-library")] == ["libm.so.6"], r


if __name__ == "__main__":
    lotest.main(globals())
