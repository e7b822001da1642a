"""leftover itself built for arm64, and run under qemu-user, judges as the x86-64 build does.

ci/cross-build aarch64 builds the program and the loader's unit tests
(resolve, hardening, verdict) with Debian's cross compiler against the
:arm64 packages it unpacks into a root of its own (libgit2-dev:arm64 cannot
be installed beside the amd64 one). The unit tests run under
qemu-aarch64-static through ctest. Then the arm64 program judges the
aarch64 agreement set of test_targets.py: the tree of objects that load
and fail for each reason, and this machine's /usr/lib/aarch64-linux-gnu.
Truth is the aarch64 loader under qemu (a dlopen probe built with
aarch64-linux-gnu-gcc); the arm64 build must agree with it on every
counted object, and its JSON must be the x86-64 build's, file for file.

What "native" means there: the arm64 program's own target is aarch64, so
the ld.so.cache and default directories it reads for aarch64 objects are
this machine's /etc/ld.so.cache (read for aarch64's entry flags) and
/lib/aarch64-linux-gnu, /usr/lib/aarch64-linux-gnu: exactly what the
aarch64 loader under qemu reads, since the probe runs without -L too.
So no --sysroot: this machine's root is the aarch64 loader's root here.
The program is run without qemu's -L, which would redirect every path it
opens into the build's root of unpacked packages whenever the file exists
there (/usr/lib/aarch64-linux-gnu/libz.so.1 among them): it finds its own
libraries through its RPATH into that root instead.
"""
import time
from pathlib import Path

import lotest
import test_loader_agreement as agreement
import test_targets

ARCH = "aarch64-linux-gnu"
UNIT_TESTS = ["resolve", "hardening", "verdict"]


def cross_build():
    """ci/cross-build aarch64 into the checkout's build-aarch64, its default: kept
    between runs and shared by the plain and the sanitizer passes of ci/test,
    the second only builds what changed (its root of packages is made once)."""
    lotest.need_arch(ARCH, test_targets.PACKAGES)
    lotest.need("/usr/lib/gcc-cross/aarch64-linux-gnu/12/libstdc++.so",
                "libstdc++-12-dev-arm64-cross")
    build = lotest.SOURCE_DIR / "build-aarch64"
    lotest.run([lotest.SOURCE_DIR / "ci" / "cross-build", "aarch64", "leftover"]
               + ["unit_" + t for t in UNIT_TESTS],
               env={"LEFTOVER_CROSS_BUILD_DIR": str(build)}, timeout=1200)
    return build


def view(program, root):
    """(absolute path, JSON entry) of each ELF shared object `program` reports under root."""
    r = lotest.Scan(lotest.run(program + ["scan", "--format", "json", root], check=False))
    assert r.rc in (0, 1) and r.doc, r
    return [(Path(r.doc["root"]) / f["path"], f) for f in r.doc["files"]
            if agreement.is_elf_shared_object(Path(r.doc["root"]) / f["path"])]


def test_arm64_build_under_qemu_judges_as_the_loader_and_the_x86_64_build():
    t0 = time.monotonic()
    build = cross_build()
    arm64 = ["qemu-aarch64-static", build / "auditor" / "leftover"]
    head = lotest.run(["file", "-L", arm64[1]]).stdout
    assert "ARM aarch64" in head, head
    t1 = time.monotonic()
    r = lotest.run(["ctest", "--output-on-failure", "-R",
                    r"^unit\.(%s)$" % "|".join(UNIT_TESTS)], cwd=build, check=False, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:]
    assert "100%% tests passed, 0 tests failed out of %d" % len(UNIT_TESTS) in r.stdout, r.stdout
    t2 = time.monotonic()

    d = lotest.workdir("arm64/tree")
    failing = test_targets.build_tree(ARCH, d)
    for root, label in ((d, "tree"), (Path("/usr/lib") / ARCH, "/usr/lib/" + ARCH)):
        native = view([lotest.LEFTOVER], root)
        cross = view(arm64, root)
        # the same files, the same verdicts and reasons, field for field
        assert [str(p) for p, _ in cross] == [str(p) for p, _ in native], label
        differ = [(p, a, b) for (p, a), (_, b) in zip(native, cross) if a != b]
        assert not differ, "x86-64 and arm64 builds differ on %d files, first: %s" % (
            len(differ), differ[0])
        for p, f in cross:
            assert f["arch"] == test_targets.MACHINES[test_targets.machine_of(p)], (p, f)
        counted, bad = test_targets.agree(cross, "arm64 build: " + label)
        assert not bad, "%d disagreements with the aarch64 loader" % len(bad)
        if root == d:
            assert counted == len(cross) == 12, (counted, len(cross))
            by_name = {p.name: f for p, f in cross}
            for name, kind in failing.items():
                assert [x["kind"] for x in by_name[name]["reasons"]] == [kind], by_name[name]
        else:
            assert counted >= 50, counted
    print("  time: cross build %.0f s, unit tests under qemu %.0f s, agreement %.0f s"
          % (t1 - t0, t2 - t1, time.monotonic() - t2))


if __name__ == "__main__":
    lotest.main(globals())
