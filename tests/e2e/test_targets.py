"""Each object judged by its own target's loader, whatever machine runs leftover.

For i386 (built here with gcc -m32) and aarch64 (built with Debian's cross
compiler), a tree of objects that load and objects that fail for each
reason leftover models, and the machine's own multiarch libraries of that
architecture (/usr/lib/TRIPLET, Debian's `:i386` and `:arm64` packages,
installed by this test). The truth is that target's real loader: a plain
C program of the architecture doing dlopen(path, RTLD_NOW|RTLD_LOCAL) in a
forked child, run natively for i386 and under qemu-user for aarch64. The
test prints `agreement: N/M` per target and fails on any disagreement.

The tree also checks the target's own values: $LIB and $PLATFORM in a
RUNPATH expand as that target's loader expands them, and a library of
another class first on the search path is passed over.
"""
import shutil
import sys
from pathlib import Path

import lotest
import test_loader_agreement as agreement

# Multiarch packages with shared objects of many kinds (C++, plugins, engines).
PACKAGES = ["zlib1g", "libstdc++6", "libssl3", "libffi8", "libexpat1"]
TARGETS = {"i386-linux-gnu": "i686", "aarch64-linux-gnu": "aarch64"}
MACHINES = {3: "i386-linux-gnu", 62: "x86_64-linux-gnu", 183: "aarch64-linux-gnu"}


def machine_of(path):
    """e_machine of a little-endian ELF file."""
    with open(path, "rb") as f:
        return int.from_bytes(f.read(20)[18:20], "little")


def build_tree(arch, d):
    """One object per outcome, compiled for arch; returns the expected failure kinds."""
    def cc(name, src, *flags):
        return lotest.cc_for(arch, d / name, src, *flags)
    # a symbol the current library no longer exports
    cc("dep/libdep.so", "int kept(void) { return 1; } int gone(void) { return 2; }",
       "-Wl,-soname,libdep.so")
    cc("libsym.so", "int gone(void); int use(void) { return gone(); }",
       "-L", d / "dep", "-ldep", "-Wl,-rpath,$ORIGIN/dep")
    cc("dep/libdep.so", "int kept(void) { return 1; }", "-Wl,-soname,libdep.so")
    # a symbol version the current library no longer defines
    (d / "v1.map").write_text("V_1 { global: v1; local: *; };\n")
    (d / "v2.map").write_text("V_1 { global: v1; local: *; };\nV_2 { global: v2; } V_1;\n")
    cc("ver/libv.so", "int v1(void) { return 1; } int v2(void) { return 2; }",
       "-Wl,-soname,libv.so", "-Wl,--version-script=%s" % (d / "v2.map"))
    cc("libver.so", "int v2(void); int use(void) { return v2(); }",
       "-L", d / "ver", "-lv", "-Wl,-rpath,$ORIGIN/ver")
    cc("ver/libv.so", "int v1(void) { return 1; } int v2(void) { return 2; }",
       "-Wl,-soname,libv.so", "-Wl,--version-script=%s" % (d / "v1.map"))
    # a library that is gone
    cc("gone/libgone.so", "int g(void) { return 3; }", "-Wl,-soname,libgone.so")
    cc("libmiss.so", "int g(void); int use(void) { return g(); }",
       "-L", d / "gone", "-lgone")
    (d / "gone" / "libgone.so").unlink()
    # $LIB and $PLATFORM as this target's loader expands them
    cc("plat/%s/libp.so" % TARGETS[arch], "int p(void) { return 4; }", "-Wl,-soname,libp.so")
    cc("lib/%s/libl.so" % arch, "int l(void) { return 5; }", "-Wl,-soname,libl.so")
    cc("libdst.so", "int p(void); int l(void); int use(void) { return p() + l(); }",
       "-L", d / "plat" / TARGETS[arch], "-L", d / "lib" / arch, "-lp", "-ll",
       "-Wl,--enable-new-dtags,-rpath,$ORIGIN/plat/$PLATFORM:$ORIGIN/$LIB")
    # a 64-bit x86-64 libz9.so first on the RUNPATH: passed over, the right one second
    lotest.cc(d / "x86/libz9.so", "int z9(void) { return 9; }")
    cc("own/libz9.so", "int z9(void) { return 9; }")
    cc("libclass.so", "int z9(void); int use(void) { return z9(); }",
       "-L", d / "own", "-lz9", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/x86:$ORIGIN/own")
    cc("libok.so", "int ok(void) { return 0; }")
    return {"libsym.so": "undefined-symbol", "libver.so": "missing-version",
            "libmiss.so": "missing-library"}


def agree(entries, label):
    """Compare leftover's `loads` with the real loader's; print the figures; the disagreements."""
    answers = agreement.loader_view(entries)
    counted, disagree = 0, []
    for (p, f), a in zip(entries, answers):
        if f["host_rule"] and not f["host"]:
            # a [host] rule's program (gdb, for libthread_db) of this machine is not
            # here: its provides stood in, and no program here can say otherwise
            print("    not counted: %s: host of [host \"%s\"] not here" % (p, f["host_rule"]))
            continue
        if a is None or (a != "ok" and not (a.startswith("error ")
                                            and agreement.COUNTED.search(a))):
            print("    not counted: %s: %s (leftover: %s)" % (p, a, f["verdict"]))
            continue
        counted += 1
        if f["loads"] is not (a == "ok"):
            disagree.append("%s\n    loader:   %s\n    leftover: loads=%s %s: %s"
                            % (p, a, f["loads"], f["verdict"], agreement.why(f)))
    print("  %-20s agreement: %d/%d" % (label, counted - len(disagree), counted))
    for line in disagree:
        print("DISAGREE " + line)
    sys.stdout.flush()
    return counted, disagree


def check_target(arch):
    lotest.need_arch(arch, PACKAGES)
    d = lotest.workdir("targets/" + arch)
    failing = build_tree(arch, d)
    tree = agreement.leftover_view(d)
    system = agreement.leftover_view(Path("/usr/lib") / arch)
    for p, f in tree + system:
        # each by its own machine's loader: the x86-64 decoy, and the x86-64
        # plugins a cross toolchain puts under /usr/lib/aarch64-linux-gnu, too
        assert f["arch"] == MACHINES[machine_of(p)], (p, f)
    n_tree, bad_tree = agree(tree, arch + " tree")
    n_sys, bad_sys = agree(system, "/usr/lib/" + arch)
    assert not bad_tree and not bad_sys, "%d disagreements" % (len(bad_tree) + len(bad_sys))
    # every object of the tree is counted; the system has enough to say something
    assert n_tree == len(tree) == 12 and n_sys >= 50, (len(tree), n_tree, n_sys)
    # the failures are real ones, found for the right reason
    by_path = {Path(p).name: f for p, f in tree}
    for name, kind in failing.items():
        f = by_path[name]
        assert f["verdict"] == "broken", f
        assert [r["kind"] for r in f["reasons"]] == [kind], f
    for name in ("libdst.so", "libclass.so", "libok.so"):
        assert by_path[name]["verdict"] == "ok", by_path[name]


def test_i386_objects_are_judged_by_the_i386_loader():
    check_target("i386-linux-gnu")


def test_aarch64_objects_are_judged_by_the_aarch64_loader_under_qemu():
    check_target("aarch64-linux-gnu")


def build_musl_tree(d, arch="x86_64-linux-musl"):
    """Objects built with musl-gcc (of arch), where musl's loader differs from
    glibc's. Returns {name: the reason kind leftover must give, or None for ok}."""

    def cc(name, src, *flags):
        return lotest.cc_for(arch, d / name, src, *flags)
    cc("libok.so", "int ok(void) { return 0; }")
    cc("dep/libdep.so", "int kept(void) { return 1; } int gone(void) { return 2; }",
       "-Wl,-soname,libdep.so")
    cc("libsym.so", "int gone(void); int use(void) { return gone(); }",
       "-L", d / "dep", "-ldep", "-Wl,-rpath,$ORIGIN/dep")
    cc("dep/libdep.so", "int kept(void) { return 1; }", "-Wl,-soname,libdep.so")
    cc("gone/libgone.so", "int g(void) { return 3; }", "-Wl,-soname,libgone.so")
    cc("libmiss.so", "int g(void); int use(void) { return g(); }", "-L", d / "gone", "-lgone")
    (d / "gone" / "libgone.so").unlink()
    # v2 moved from version V_2 to V_1: glibc refuses (version `V_2' not found), musl,
    # which checks no versions, binds it
    (d / "v2.map").write_text("V_1 { global: v1; local: *; };\nV_2 { global: v2; } V_1;\n")
    (d / "v1.map").write_text("V_1 { global: v1; v2; local: *; };\n")
    src = "int v1(void) { return 1; } int v2(void) { return 2; }"
    cc("ver/libv.so", src, "-Wl,-soname,libv.so", "-Wl,--version-script=%s" % (d / "v2.map"))
    cc("libver.so", "int v2(void); int use(void) { return v2(); }",
       "-L", d / "ver", "-lv", "-Wl,-rpath,$ORIGIN/ver")
    cc("ver/libv.so", src, "-Wl,-soname,libv.so", "-Wl,--version-script=%s" % (d / "v1.map"))
    # musl searches the RUNPATH of every object up the chain (glibc: the needing one's only)
    cc("chain/libb.so", "int b(void) { return 5; }", "-Wl,-soname,libb.so")
    cc("chain/liba.so", "int b(void); int a(void) { return b(); }", "-Wl,-soname,liba.so",
       "-L", d / "chain", "-lb")
    cc("libchain.so", "int a(void); int use(void) { return a(); }", "-L", d / "chain",
       "-la", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/chain")
    # and ignores a whole RUNPATH with a $ other than $ORIGIN in it
    cc("dollar/libd.so", "int dd(void) { return 6; }", "-Wl,-soname,libd.so")
    cc("libdollar.so", "int dd(void); int use(void) { return dd(); }", "-L", d / "dollar",
       "-ld", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/dollar:/nonexistent/$LIB")
    return {"libok.so": None, "libsym.so": "undefined-symbol", "libmiss.so": "missing-library",
            "libver.so": None, "libchain.so": None, "libdollar.so": "missing-library"}


def test_musl_objects_are_judged_by_musls_loader():
    arch = "x86_64-linux-musl"
    lotest.need_arch(arch)
    d = lotest.workdir("targets/" + arch)
    expect = build_musl_tree(d)
    tree = agreement.leftover_view(d)
    for p, f in tree:
        assert f["arch"] == arch, (p, f)
    n, bad = agree(tree, arch + " tree")
    assert not bad and n == len(tree), (n, len(tree), bad)
    by_path = {str(p.relative_to(d)): f for p, f in tree}
    for name, kind in expect.items():
        f = by_path[name]
        assert [r["kind"] for r in f["reasons"]] == ([kind] if kind else []), f
        assert f["verdict"] == ("broken" if kind else "ok"), f


def test_glibc_hwcaps_subdirectories_are_searched_as_this_cpu_has_them():
    """glibc 2.33+ looks in DIR/glibc-hwcaps/x86-64-vN/ before DIR, for each
    level the CPU supports. For each level, a library whose copy in that
    subdirectory defines a symbol the plain copy does not, and a user of the
    symbol with DIR as its RUNPATH: it loads exactly where this CPU has the
    level, which leftover must say without running it (and the real loader
    does say)."""
    arch = lotest.NATIVE_ARCH
    d = lotest.workdir("targets/hwcaps")
    for level in ("x86-64-v2", "x86-64-v3", "x86-64-v4"):
        n = level[-1]
        lib = d / ("lib" + n)
        lotest.cc(lib / "glibc-hwcaps" / level / ("libh%s.so" % n),
                  "int h(void) { return 0; } int h%s(void) { return 1; }" % n,
                  "-Wl,-soname,libh%s.so" % n)
        lotest.cc(lib / ("libh%s.so" % n), "int h(void) { return 0; }",
                  "-Wl,-soname,libh%s.so" % n)
        lotest.cc(d / ("libuse%s.so" % n), "int h%s(void); int use(void) { return h%s(); }"
                  % (n, n), "-L", lib / "glibc-hwcaps" / level, "-lh" + n,
                  "-Wl,--enable-new-dtags,-rpath,$ORIGIN/lib" + n)
    tree = [(p, f) for p, f in agreement.leftover_view(d) if p.parent == d]
    assert len(tree) == 3, tree
    n, bad = agree(tree, arch + " glibc-hwcaps")
    assert not bad and n == 3, bad
    # x86-64 CPUs of the last fifteen years have v2: the test cannot pass by none loading
    assert any(f["loads"] for p, f in tree if p.name == "libuse2.so"), tree
    # another CPU, with v2 only: as the loader searches with --glibc-hwcaps-mask
    users = [d / ("libuse%s.so" % n) for n in "234"]
    masked = lotest.dlopen(users, run=["/lib64/ld-linux-x86-64.so.2", "--glibc-hwcaps-mask",
                                       "x86-64-v2"])
    r = lotest.scan(d, args=["--hwcaps", "x86-64-v2"])
    got = [r.file(p.name)["loads"] for p in users]
    assert got == [a == "ok" for a in masked], (got, masked)
    assert got == [True, False, False], got


def test_sysroot_judges_a_cross_tree_against_its_root_and_never_leaves_it():
    """An aarch64 plugin built against a C-API library that a newer root
    filesystem no longer exports a symbol from: with --sysroot it is broken
    for that symbol, as the aarch64 loader under qemu with that root says;
    without, the library is simply not on this machine. Links in the root
    that point out of it (absolute, or up through ..) resolve inside it."""
    arch = "aarch64-linux-gnu"
    lotest.need_arch(arch)
    d = lotest.workdir("targets/sysroot")
    root, tree, old = d / "root", d / "tree", d / "old"
    libdir = root / "usr" / "lib" / arch
    (root / "lib" / arch).mkdir(parents=True)
    for name in ("libc.so.6", "ld-linux-aarch64.so.1"):
        shutil.copy(Path("/usr/lib") / arch / name, root / "lib" / arch / name)
    shutil.copy(Path("/usr/lib") / arch / "ld-linux-aarch64.so.1", root / "lib")
    capi = "int mlirRegisterAllPasses(void) { return 1; } int mlirContextCreate(void) { return 2; }"
    lotest.cc_for(arch, old / "libcapi.so", capi, "-Wl,-soname,libcapi.so")
    lotest.cc_for(arch, tree / "libplug.so",
                  "int mlirRegisterAllPasses(void); int go(void) { return mlirRegisterAllPasses(); }",
                  "-L", old, "-lcapi")
    lotest.cc_for(arch, libdir / "libcapi.so", "int mlirContextCreate(void) { return 2; }",
                  "-Wl,-soname,libcapi.so")
    # two ways out of the root, each to a real aarch64 library of this machine
    host_libc = Path("/usr/lib") / arch / "libc.so.6"
    (libdir / "libout.so").symlink_to(host_libc)
    (libdir / "libdots.so").symlink_to("../../../../../.." + str(host_libc))
    for name in ("out", "dots"):
        lotest.cc_for(arch, old / ("lib%s.so" % name), "int x_%s(void) { return 0; }" % name,
                      "-Wl,-soname,lib%s.so" % name)
        lotest.cc_for(arch, tree / ("libuse%s.so" % name), "int u(void) { return 0; }",
                      "-L", old, "-Wl,--no-as-needed", "-l" + name)

    truth = lotest.dlopen([tree / "libplug.so"], arch=arch,
                          run=["qemu-aarch64-static", "-L", root])
    assert "mlirRegisterAllPasses" in truth[0], truth
    r = lotest.scan(tree, args=["--sysroot", root])
    f = r.file("libplug.so")
    assert f["verdict"] == "broken" and f["arch"] == arch, f
    assert [(x["kind"], x["symbol"]) for x in f["reasons"]] == \
        [("undefined-symbol", "mlirRegisterAllPasses")], f
    for name in ("out", "dots"):
        f = r.file("libuse%s.so" % name)
        assert [x["library"] for x in r.reasons("libuse%s.so" % name, "missing-library")] == \
            ["lib%s.so" % name], f
    # without the root: the C-API library is not on this machine at all
    r = lotest.scan(tree)
    assert [x["library"] for x in r.reasons("libplug.so", "missing-library")] == ["libcapi.so"]


if __name__ == "__main__":
    lotest.main(globals())
