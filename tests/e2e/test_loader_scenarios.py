"""The loader's features, one scenario each, against the real loader.

Each test builds a small tree of objects with lotest.cc, the shape of one
thing ld.so does (symbol versions, symbols bound at start, $ORIGIN), and
holds leftover's answer against what glibc does with the same files: a
program run, or dlopen() in a forked child (lotest.dlopen).
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
    return r


def assert_host_usable(d, exe):
    p = run_program(exe)
    assert p.returncode == 0, p.stderr
    r = lotest.scan(d / "plugins", args=["--host", exe])
    assert r.rc == 0, r
    assert r.file("libplugin.so")["verdict"] == "ok", r


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
    r = assert_host_unusable(d, d / "exe_v2", "version `VER_2' not found")
    assert str(d / "libv.so") in r.reasons("libplugin.so", "no-host")[0]["detail"], r
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
    assert_host_unusable(d, d / "exe_s", "undefined symbol: gone")


def test_host_needs_a_library_that_is_gone():
    # The failure already caught before: the same reason, the same shape.
    d = lotest.workdir("libraries")
    lotest.cc(d / "libl.so", "int l(void) { return 0; }\n")
    lotest.cc(d / "exe_l", "int l(void);\nint main(void) { return l(); }\n",
              "-L", d, "-ll", "-Wl,-rpath,$ORIGIN", shared=False)
    lotest.cc(d / "plugins" / "libplugin.so", PLUGIN)
    assert_host_usable(d, d / "exe_l")
    (d / "libl.so").unlink()
    assert_host_unusable(d, d / "exe_l", "libl.so")


if __name__ == "__main__":
    lotest.main(globals())
