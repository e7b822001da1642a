"""One loader behaviour per test, each on a tiny tree built here with gcc.

Every test builds its own small fixture (a few lines of C), runs
`leftover scan`, and checks what a user would read; where the real loader
can say what happens, the test asks it too (lotest.dlopen), so the expected
answer is the loader's, not ours. The builders (build_*) return the tree and
are reused by test_loader_agreement.py, which holds every object they make
against dlopen.
"""
import os
from pathlib import Path

import lotest

# --- builders: each makes one scenario under a fresh dir and returns it ---


def build_missing_needed(d):
    """libuser.so needs liba.so (found by RUNPATH $ORIGIN), then liba.so is deleted."""
    lotest.cc(d / "liba.so", "int a(void) { return 1; }")
    lotest.cc(d / "libuser.so", "int a(void); int user(void) { return a(); }",
              "-L", d, "-la", "-Wl,--enable-new-dtags,-rpath,$ORIGIN")
    (d / "liba.so").unlink()
    return d


VERSION_SCRIPT_2 = "LIBFOO_1.0 { global: foo1; local: *; };\nLIBFOO_2.0 { global: foo2; } LIBFOO_1.0;\n"
VERSION_SCRIPT_1 = "LIBFOO_1.0 { global: foo1; local: *; };\n"


def build_missing_version(d):
    """libconsumer.so binds foo2@LIBFOO_2.0; libfoo.so.1 is rebuilt with LIBFOO_1.0 only."""
    (d / "v2.map").write_text(VERSION_SCRIPT_2)
    lotest.cc(d / "libfoo.so.1", "int foo1(void) { return 1; } int foo2(void) { return 2; }",
              "-Wl,-soname,libfoo.so.1", "-Wl,--version-script=%s" % (d / "v2.map"))
    os.symlink("libfoo.so.1", d / "libfoo.so")
    lotest.cc(d / "libconsumer.so", "int foo2(void); int consume(void) { return foo2(); }",
              "-L", d, "-lfoo", "-Wl,--enable-new-dtags,-rpath,$ORIGIN")
    # The library's next release drops the interface the consumer was linked against.
    (d / "v1.map").write_text(VERSION_SCRIPT_1)
    lotest.cc(d / "libfoo.so.1", "int foo1(void) { return 1; }",
              "-Wl,-soname,libfoo.so.1", "-Wl,--version-script=%s" % (d / "v1.map"))
    return d


def build_weak_undefined(d):
    """libweak.so refers to a weak symbol nobody defines, and checks it before use."""
    lotest.cc(d / "libweak.so", "extern void maybe_hook(void) __attribute__((weak));\n"
              "void run(void) { if (maybe_hook) maybe_hook(); }")
    return d


def build_rpath_runpath(d):
    """Two modules, each needing libmid.so, which needs libdeep.so (no path of its own).

    mod-rpath/libmod.so has DT_RPATH naming both lib dirs; mod-runpath/libmod.so
    the same list as DT_RUNPATH. ld.so uses an object's DT_RPATH also for the
    needs of what it loads (when those have no DT_RUNPATH); a DT_RUNPATH only
    for the object's own needs. So the RPATH module loads and the RUNPATH one
    cannot find libdeep.so.
    """
    lotest.cc(d / "deep" / "libdeep.so", "int deep(void) { return 3; }")
    lotest.cc(d / "mid" / "libmid.so", "int deep(void); int mid(void) { return deep(); }",
              "-L", d / "deep", "-ldeep")
    for tags, sub in (("--disable-new-dtags", "mod-rpath"), ("--enable-new-dtags", "mod-runpath")):
        lotest.cc(d / sub / "libmod.so", "int mid(void); int mod(void) { return mid(); }",
                  "-L", d / "mid", "-lmid", "-Wl,-rpath-link,%s" % (d / "deep"),
                  "-Wl,%s,-rpath,$ORIGIN/../mid:$ORIGIN/../deep" % tags)
    return d


def build_origin_lib(d):
    """plugins/libplugin.so finds lib/libcore.so through RUNPATH $ORIGIN/../lib."""
    lotest.cc(d / "lib" / "libcore.so", "int core(void) { return 4; }")
    lotest.cc(d / "plugins" / "libplugin.so", "int core(void); int plugin(void) { return core(); }",
              "-L", d / "lib", "-lcore", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../lib")
    return d


def build_class_on_search_path(d):
    """A 32-bit libz9.so first on the RUNPATH, a 64-bit one second.

    with-both/libneeds.so searches first32:second64 and must find the 64-bit
    copy (the loader skips the wrong class and goes on); only-32/libneeds.so
    searches first32 alone and cannot load. The 32-bit libz9.so is itself a
    candidate in the tree, of the wrong class.
    """
    lotest.need_arch("i386-linux-gnu")
    src = "int z9(void) { return 9; }"
    lotest.cc(d / "first32" / "libz9.so", src, "-m32")
    lotest.cc(d / "second64" / "libz9.so", src)
    user = "int z9(void); int needs(void) { return z9(); }"
    lotest.cc(d / "with-both" / "libneeds.so", user, "-L", d / "second64", "-lz9",
              "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../first32:$ORIGIN/../second64")
    lotest.cc(d / "only-32" / "libneeds.so", user, "-L", d / "second64", "-lz9",
              "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../first32")
    return d


def build_wrong_class(d):
    """lib32.so: a 32-bit object, which a 32-bit program loads and a 64-bit one refuses."""
    lotest.need_arch("i386-linux-gnu")
    lotest.cc(d / "lib32.so", "int f(void) { return 32; }", "-m32")
    return d


EM_SPARCV9 = 43


def build_foreign_machine(d):
    """libsparc.so: a real x86-64 object with e_machine patched to EM_SPARCV9,
    a machine of no loader leftover models (and, little-endian, of none at all)."""
    p = lotest.cc(d / "libsparc.so", "int f(void) { return 64; }")
    b = bytearray(p.read_bytes())
    b[18:20] = EM_SPARCV9.to_bytes(2, "little")  # e_machine, in a 64-bit LSB header
    p.write_bytes(bytes(b))
    return d


def build_linker_script(d):
    """libfoo.so is a GNU ld script (as Debian's libc.so is), next to the real libfoo.so.1."""
    lotest.cc(d / "libfoo.so.1", "int foo(void) { return 1; }", "-Wl,-soname,libfoo.so.1")
    (d / "libfoo.so").write_text("/* GNU ld script */\nINPUT ( libfoo.so.1 )\n")
    return d


def build_truncated(d):
    """libcut.so is a real object cut in half; libwhole.so next to it is fine."""
    lotest.cc(d / "libwhole.so", "int whole(void) { return 1; }")
    p = lotest.cc(d / "libcut.so", "int cut(void) { return 2; }")
    data = p.read_bytes()
    p.write_bytes(data[:len(data) // 2])
    return d


def build_symlinks(d):
    """libx.so -> libx.so.1 (one file, two names); a dangling link; a two-link loop."""
    lotest.cc(d / "libx.so.1", "int x(void) { return 1; }", "-Wl,-soname,libx.so.1")
    os.symlink("libx.so.1", d / "libx.so")
    os.symlink("libgone.so.1", d / "libgone.so")
    os.symlink("libloop-b.so", d / "libloop-a.so")
    os.symlink("libloop-a.so", d / "libloop-b.so")
    return d


ODD_NAMES = ("lib with space.so", "lib\nnewline.so")


def build_odd_names(d):
    """Shared objects whose names have a space and a newline in them."""
    for n in ODD_NAMES:
        lotest.cc(d / n, "int f(void) { return 1; }")
    return d


# Every builder with the name of its tree, for test_loader_agreement.py.
def build_binds_back(d):
    """libplugin.so defines plugin_api, which libhelper.so, its dependency, calls.

    dlopen of libplugin.so binds it there (the plugin heads its own local
    scope); libhelper.so alone, and libother.so, which needs only it, find
    plugin_api nowhere. The plugin is at the top and the others in lib/,
    so that a scan on one thread judges it first (the walk lists a
    directory's files before going down).
    """
    lotest.cc(d / "lib" / "libhelper.so", "int plugin_api(void); int helper(void) { return plugin_api(); }")
    lotest.cc(d / "libplugin.so", "int plugin_api(void) { return 1; }\n"
              "int helper(void); int run(void) { return helper(); }",
              "-L", d / "lib", "-lhelper", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/lib")
    lotest.cc(d / "lib" / "libother.so", "int helper(void); int other(void) { return helper(); }",
              "-L", d / "lib", "-lhelper", "-Wl,--enable-new-dtags,-rpath,$ORIGIN")
    return d


BUILDERS = [build_missing_needed, build_missing_version, build_weak_undefined,
            build_rpath_runpath, build_origin_lib, build_class_on_search_path,
            build_wrong_class, build_foreign_machine, build_linker_script,
            build_truncated, build_symlinks, build_odd_names, build_binds_back]


def fresh(builder):
    return builder(lotest.workdir("cases/" + builder.__name__[len("build_"):]))


def real_loader(path):
    return lotest.dlopen([path])[0]


# --- the tests ---


def test_missing_needed_library_is_broken():
    d = fresh(build_missing_needed)
    assert "liba.so: cannot open shared object file" in real_loader(d / "libuser.so")
    r = lotest.scan(d)
    assert r.rc == 1, r
    f = r.file("libuser.so")
    assert f["verdict"] == "broken" and f["loads"] is False, f
    assert [x["library"] for x in r.reasons("libuser.so", "missing-library")] == ["liba.so"], f


def test_missing_symbol_version_is_missing_version():
    d = fresh(build_missing_version)
    answer = real_loader(d / "libconsumer.so")
    assert "version `LIBFOO_2.0' not found" in answer, answer
    r = lotest.scan(d)
    assert r.rc == 1, r
    f = r.file("libconsumer.so")
    assert f["loads"] is False and f["verdict"] == "broken", f
    why = r.reasons("libconsumer.so", "missing-version")
    assert why and why[0]["version"] == "LIBFOO_2.0", f
    # The library itself is fine, and is reported once, by the link's target.
    assert r.file("libfoo.so.1")["verdict"] == "ok"
    assert "libfoo.so" not in r.files, r.files


def test_weak_undefined_symbol_loads():
    d = fresh(build_weak_undefined)
    assert real_loader(d / "libweak.so") == "ok"
    r = lotest.scan(d)
    assert r.rc == 0, r
    f = r.file("libweak.so")
    assert f["verdict"] == "ok" and f["loads"] is True and f["reasons"] == [], f


def test_rpath_is_inherited_by_dependencies_runpath_is_not():
    d = fresh(build_rpath_runpath)
    dyn = lotest.run(["readelf", "-d", d / "mod-rpath" / "libmod.so"]).stdout
    assert "(RPATH)" in dyn and "(RUNPATH)" not in dyn, dyn
    dyn = lotest.run(["readelf", "-d", d / "mod-runpath" / "libmod.so"]).stdout
    assert "(RUNPATH)" in dyn and "(RPATH)" not in dyn, dyn
    assert real_loader(d / "mod-rpath" / "libmod.so") == "ok"
    assert "libdeep.so: cannot open" in real_loader(d / "mod-runpath" / "libmod.so")

    r = lotest.scan(d)
    assert r.file("mod-rpath/libmod.so")["loads"] is True, r.file("mod-rpath/libmod.so")
    f = r.file("mod-runpath/libmod.so")
    assert f["loads"] is False and f["verdict"] == "broken", f
    assert "libdeep.so" in [x["library"] for x in r.reasons("mod-runpath/libmod.so", "missing-library")], f


def test_origin_dot_dot_lib_is_followed():
    d = fresh(build_origin_lib)
    assert real_loader(d / "plugins" / "libplugin.so") == "ok"
    r = lotest.scan(d)
    assert r.rc == 0, r
    assert r.file("plugins/libplugin.so")["verdict"] == "ok"


def test_a_binding_to_the_candidate_is_not_taken_for_another_load():
    """A library bound completely in one load is not bound again in the next
    that has the same providers. Here one provider is the candidate itself,
    which the next load lacks: libother.so must not pass on libplugin.so's
    load of libhelper.so."""
    d = fresh(build_binds_back)
    assert real_loader(d / "libplugin.so") == "ok"
    assert "undefined symbol: plugin_api" in real_loader(d / "lib" / "libother.so")
    assert "undefined symbol: plugin_api" in real_loader(d / "lib" / "libhelper.so")
    for jobs in ("1", "2"):
        r = lotest.scan(d, args=("--jobs", jobs))
        assert r.file("libplugin.so")["loads"] is True, (jobs, r.file("libplugin.so"))
        for lib in ("lib/libother.so", "lib/libhelper.so"):
            f = r.file(lib)
            assert f["loads"] is False, (jobs, f)
            assert [x["symbol"] for x in r.reasons(lib, "undefined-symbol")] == ["plugin_api"], (jobs, f)


def test_wrong_class_library_on_the_search_path_is_skipped():
    d = fresh(build_class_on_search_path)
    assert real_loader(d / "with-both" / "libneeds.so") == "ok"
    assert "libz9.so" in real_loader(d / "only-32" / "libneeds.so")
    r = lotest.scan(d)
    f = r.file("with-both/libneeds.so")
    assert f["loads"] is True and f["verdict"] == "ok", f
    f = r.file("only-32/libneeds.so")
    assert f["loads"] is False and f["verdict"] == "broken", f
    assert [x["library"] for x in r.reasons("only-32/libneeds.so", "missing-library")] == ["libz9.so"], f


def test_32_bit_candidate_is_judged_by_the_32_bit_loader():
    d = fresh(build_wrong_class)
    assert lotest.dlopen([d / "lib32.so"], arch="i386-linux-gnu") == ["ok"]
    r = lotest.scan(d)
    assert r.rc == 0, r
    f = r.file("lib32.so")
    assert f["loads"] is True and f["verdict"] == "ok", f
    assert f["arch"] == "i386-linux-gnu", f
    # loaded by a 64-bit program (the 64-bit probe, named as the host): the wrong class
    assert "wrong ELF class" in real_loader(d / "lib32.so")
    r = lotest.scan(d, args=["--host", lotest._probe_program()])
    assert r.rc == 1, r
    f = r.file("lib32.so")
    assert f["loads"] is False and f["verdict"] == "broken", f
    assert f["arch"] == "x86_64-linux-gnu", f
    assert r.reasons("lib32.so", "wrong-class"), f


def test_object_of_a_machine_not_modelled_is_unjudged():
    d = fresh(build_foreign_machine)
    assert real_loader(d / "libsparc.so") != "ok"
    r = lotest.scan(d)
    assert r.rc == 1, r
    f = r.file("libsparc.so")
    # no loader here can say whether its own would load it: not broken, not ok
    assert f["loads"] is None and f["verdict"] == "unjudged", f
    (why,) = r.reasons("libsparc.so", "no-host")
    assert "machine 43" in why["detail"] and "--host" in why["detail"], why


def test_linker_script_is_skipped_not_an_error():
    d = fresh(build_linker_script)
    r = lotest.scan(d)
    assert r.rc == 0, r
    f = r.file("libfoo.so")
    assert f["verdict"] == "skipped" and f["loads"] is None, f
    assert r.file("libfoo.so.1")["verdict"] == "ok"
    assert r.doc["summary"]["skipped"] == 1, r.doc["summary"]


def test_truncated_elf_is_unreadable_and_the_scan_goes_on():
    d = fresh(build_truncated)
    r = lotest.scan(d)
    assert r.rc == 1, r
    f = r.file("libcut.so")
    assert f["verdict"] == "unreadable" and f["loads"] is None, f
    why = r.reasons("libcut.so", "unreadable")
    assert why and "libcut.so" in (why[0]["detail"] or ""), f
    assert r.file("libwhole.so")["verdict"] == "ok"
    t = lotest.leftover("scan", d)
    assert t.returncode == 1 and "libcut.so" in t.stdout, t


def test_file_without_read_permission_is_unreadable():
    d = fresh(build_weak_undefined)
    lotest.cc(d / "libsecret.so", "int s(void) { return 0; }")
    os.chmod(d / "libsecret.so", 0)
    # nobody must be able to reach the tree and read the rest: only that one
    # file is closed (the suite runs as root, for whom mode 000 means nothing).
    os.chmod(d, 0o755)
    os.chmod(d / "libweak.so", 0o755)
    reach = lotest.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                        "test", "-r", d / "libweak.so"], check=False)
    assert reach.returncode == 0, "user nobody cannot reach %s: put LEFTOVER_WORK elsewhere" % d
    r = lotest.scan(d, user="nobody")
    assert r.rc == 1, r
    f = r.file("libsecret.so")
    assert f["verdict"] == "unreadable", f
    assert r.reasons("libsecret.so", "unreadable"), f
    assert r.file("libweak.so")["verdict"] == "ok"


def test_symlink_is_reported_once_by_its_target():
    d = fresh(build_symlinks)
    r = lotest.scan(d)
    assert r.file("libx.so.1")["verdict"] == "ok"
    assert "libx.so" not in r.files, r.files


def test_dangling_symlink_is_a_finding():
    d = fresh(build_symlinks)
    r = lotest.scan(d)
    assert r.rc == 1, r
    assert r.reasons("libgone.so", "dangling-symlink"), r.file("libgone.so")


def test_symlink_loop_is_a_finding():
    d = fresh(build_symlinks)
    r = lotest.scan(d)
    loops = [p for p in r.files if r.reasons(p, "symlink-loop")]
    assert sorted(loops) == ["libloop-a.so", "libloop-b.so"], r.files


def test_odd_file_names_survive_json_and_text():
    d = fresh(build_odd_names)
    r = lotest.scan(d)
    assert r.rc == 0, r
    assert sorted(r.files) == sorted(ODD_NAMES), sorted(r.files)
    assert "\\n" in r.stdout, "the newline must be escaped in JSON"
    # Text output: every file on one line of its own, newline shown escaped.
    t = lotest.leftover("scan", "--verbose", d)
    assert t.returncode == 0, t
    assert "lib with space.so" in t.stdout, t.stdout
    lines = [line for line in t.stdout.splitlines() if "newline.so" in line]
    assert len(lines) == 1 and "lib\\nnewline.so" in lines[0], t.stdout
    assert not any(line.startswith("newline.so") for line in t.stdout.splitlines()), t.stdout


def test_exit_status_0_when_clean():
    d = fresh(build_origin_lib)
    assert lotest.leftover("scan", d).returncode == 0


def test_exit_status_1_on_findings():
    d = fresh(build_missing_needed)
    assert lotest.leftover("scan", d).returncode == 1


def test_exit_status_2_for_a_missing_root():
    d = lotest.workdir("cases/missing-root")
    p = lotest.leftover("scan", d / "no-such-dir")
    assert p.returncode == 2, p
    assert "no-such-dir" in p.stderr, p.stderr
    assert p.stdout == "", p.stdout


def test_exit_status_2_for_a_bad_option():
    d = lotest.workdir("cases/bad-option")
    p = lotest.leftover("scan", "--no-such-option", d)
    assert p.returncode == 2, p
    assert "no-such-option" in p.stderr, p.stderr
    p = lotest.leftover("scan", "--format", "yaml", d)
    assert p.returncode == 2, p


if __name__ == "__main__":
    lotest.main(globals())
