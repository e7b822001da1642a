"""armhf, ppc64le, s390x, riscv64 and aarch64-musl objects judged by their own
loader, from x86-64.

As test_targets.py does for i386 and aarch64: for each target, the same
tree of objects (one per failure kind: undefined symbol, missing version,
missing library; $LIB and $PLATFORM in a RUNPATH; a library of another
machine first on the search path; one that loads; a library with only a
SysV hash table, of 64-bit words on s390x), built with Debian's
cross compiler, and the target's own system libraries; the truth is a
dlopen program of that architecture under qemu-user, with the real
loader. Prints `agreement: N/M` per target and fails on any disagreement.

armhf, ppc64le and s390x run on Debian's multiarch packages
(/usr/lib/TRIPLET); s390x is big-endian, its tables read on this
little-endian machine.
Debian 12 has no riscv64 packages: its loader and libraries are the cross
toolchain's, in /usr/riscv64-linux-gnu, which is the root of both qemu
(-L) and leftover (--sysroot).

What qemu-user cannot show: it passes no AT_PLATFORM on ppc64le and
s390x, so the loader drops a $PLATFORM entry there, where the kernel
passes the CPU's name (power8, z15, ...). That object is judged but not
counted for them.
"""
from pathlib import Path

import lotest
import test_loader_agreement as agreement
import test_targets as targets

# Per target: e_machine, the $PLATFORM the row expands, where its system
# libraries are, the root of its loader, and what qemu cannot tell.
SPECS = {
    "arm-linux-gnueabihf": {"machine": 40, "platform": "v8l",
                            "system": Path("/usr/lib/arm-linux-gnueabihf")},
    "powerpc64le-linux-gnu": {"machine": 21, "platform": "power8",
                              "system": Path("/usr/lib/powerpc64le-linux-gnu"),
                              "uncounted": {"libdst.so": "qemu passes no AT_PLATFORM"}},
    "s390x-linux-gnu": {"machine": 22, "platform": "z15",
                        "system": Path("/usr/lib/s390x-linux-gnu"),
                        # the mirror has no s390x security updates: zlib1g, libssl3 and
                        # libexpat1 of s390x lag the amd64 ones, which multiarch refuses
                        "packages": ["libstdc++6", "libffi8"],
                        "uncounted": {"libdst.so": "qemu passes no AT_PLATFORM"}},
    "riscv64-linux-gnu": {"machine": 243, "platform": None,
                          "system": Path("/usr/riscv64-linux-gnu/lib"),
                          "sysroot": "/usr/riscv64-linux-gnu"},
}


def build_sysv_tree(arch, d):
    """A library with only a SysV hash table (64-bit words on s390x), a user
    of two of its symbols, and one of a symbol it lacks: the table is read."""
    def cc(name, src, *flags):
        return lotest.cc_for(arch, d / name, src, *flags)
    cc("sysv/libsv.so", "int a1(void) { return 1; } int a2(void) { return 2; }",
       "-Wl,-soname,libsv.so", "-Wl,--hash-style=sysv")
    user = "int use(void) { return a1() + %s(); }"
    cc("libsvok.so", "int a1(void); int a2(void); " + user % "a2", "-L", d / "sysv", "-lsv",
       "-Wl,-rpath,$ORIGIN/sysv")
    cc("libsvsym.so", "int a1(void); int a3(void); " + user % "a3", "-L", d / "sysv", "-lsv",
       "-Wl,-rpath,$ORIGIN/sysv")
    return {"libsvsym.so": "undefined-symbol"}


def machine_of(path):
    """e_machine of an ELF file, in its own byte order."""
    with open(path, "rb") as f:
        head = f.read(20)
    return int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")


def view(root, sysroot):
    """(absolute path, JSON entry) of every ELF shared object under root."""
    r = lotest.scan(root, args=["--sysroot", sysroot] if sysroot else [])
    assert r.rc in (0, 1), r
    return [(Path(r.doc["root"]) / f["path"], f) for f in r.doc["files"]
            if agreement.is_elf_shared_object(Path(r.doc["root"]) / f["path"])]


def check_target(arch):
    spec = SPECS[arch]
    lotest.need_arch(arch, () if spec.get("sysroot") else spec.get("packages", targets.PACKAGES))
    d = lotest.workdir("targets/" + arch)
    # build_tree puts the $PLATFORM library under plat/TARGETS[arch]: where this
    # target's loader looks (riscv64: nowhere, the entry is dropped)
    targets.TARGETS[arch] = spec["platform"] or "riscv64"
    failing = targets.build_tree(arch, d)
    failing.update(build_sysv_tree(arch, d))
    if spec["platform"] is None:
        failing["libdst.so"] = "missing-library"
    tree = view(d, spec.get("sysroot"))
    system = view(spec["system"], spec.get("sysroot"))
    for p, f in tree + system:
        if machine_of(p) == spec["machine"]:
            assert f["arch"] == arch, (p, f)
        else:  # the x86-64 decoy: by its own loader, or unjudged in a root without one
            assert f["arch"] in (targets.MACHINES.get(machine_of(p)), None), (p, f)
    uncounted = spec.get("uncounted", {})
    counted_tree = [(p, f) for p, f in tree if p.name not in uncounted]
    for p, f in tree:
        if p.name in uncounted:
            print("    not counted: %s: %s (leftover: %s)" % (p, uncounted[p.name], f["verdict"]))
    n_tree, bad_tree = targets.agree(counted_tree, arch + " tree")
    n_sys, bad_sys = targets.agree(system, str(spec["system"]))
    assert not bad_tree and not bad_sys, "%d disagreements" % (len(bad_tree) + len(bad_sys))
    # every object is counted, but the x86-64 decoy in a root without x86-64's libc
    assert len(tree) == 15 and n_tree == 15 - len(uncounted) - bool(spec.get("sysroot")), \
        (len(tree), n_tree)
    # riscv64's root is the cross toolchain's few libraries; the others have Debian's
    assert n_sys >= (15 if spec.get("sysroot") else 50), n_sys
    by_path = {Path(p).name: f for p, f in tree}
    for name, kind in failing.items():
        f = by_path[name]
        assert f["verdict"] == "broken", f
        assert [r["kind"] for r in f["reasons"]] == [kind], f
    for name in {"libdst.so", "libclass.so", "libok.so", "libsvok.so"} - set(failing):
        assert by_path[name]["verdict"] == "ok", by_path[name]


def test_armhf_objects_are_judged_by_the_armhf_loader_under_qemu():
    check_target("arm-linux-gnueabihf")


def test_ppc64le_objects_are_judged_by_the_ppc64le_loader_under_qemu():
    check_target("powerpc64le-linux-gnu")


def test_s390x_big_endian_objects_are_judged_by_the_s390x_loader_under_qemu():
    check_target("s390x-linux-gnu")


def test_riscv64_objects_are_judged_by_the_riscv64_loader_under_qemu():
    check_target("riscv64-linux-gnu")


def test_aarch64_musl_objects_are_judged_by_musls_aarch64_loader_under_qemu():
    """test_targets.py's musl tree, built with Debian's aarch64-linux-musl-gcc
    (musl-dev:arm64) and loaded by /lib/ld-musl-aarch64.so.1 under qemu."""
    arch = "aarch64-linux-musl"
    lotest.need_arch(arch)
    d = lotest.workdir("targets/" + arch)
    expect = targets.build_musl_tree(d, arch)
    tree = view(d, None)
    for p, f in tree:
        assert f["arch"] == arch, (p, f)
    n, bad = targets.agree(tree, arch + " tree")
    assert not bad and n == len(tree) == 11, (n, len(tree), bad)
    by_path = {str(p.relative_to(d)): f for p, f in tree}
    for name, kind in expect.items():
        f = by_path[name]
        assert [r["kind"] for r in f["reasons"]] == ([kind] if kind else []), f
        assert f["verdict"] == ("broken" if kind else "ok"), f


if __name__ == "__main__":
    lotest.main(globals())
