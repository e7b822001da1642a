"""Truncation and corruption sweep (issue 7): a hostile or half-written ELF
file is a finding, never a crash, a hang or a file left out.

A real shared object (with a dependency, versioned symbols, RUNPATH and
both hash tables, so every table the reader follows is there to cut) is cut
at every 64-byte boundary and corrupted at seeded random bytes, all in one
directory scanned once: the exit status is 0 or 1, every variant is in the
JSON exactly once, nothing reaches stderr from a sanitizer, and the scan
stays within a second per file on average. Under ci/test-sanitize the same
test runs the ASan + UBSan build.
"""

import random
import time

import lotest

CORRUPTIONS = 10000


def build_object(d):
    (d / "dep.map").write_text("V1 { global: dep_old; local: *; };\n"
                               "V2 { global: dep; } V1;\n")
    lotest.cc(d / "lib" / "libdep.so", "int dep(int x) { return x + 1; }\n"
              "int dep_old(int x) { return x; }\n",
              "-Wl,--version-script=" + str(d / "dep.map"), "-Wl,-soname,libdep.so")
    return lotest.cc(d / "src" / "libvictim.so",
                     "#include <stdio.h>\nextern int dep(int);\n"
                     "__attribute__((weak)) extern int maybe(void);\n"
                     "int victim(int x) { printf(\"%d\", x); return dep(x) + (maybe ? maybe() : 0); }\n",
                     "-L", d / "lib", "-ldep", "-Wl,--hash-style=both",
                     "-Wl,--enable-new-dtags", "-Wl,-rpath," + str(d / "lib"))


def test_truncations_and_corruptions():
    d = lotest.workdir("hardening_sweep")
    data = build_object(d).read_bytes()
    tree = d / "tree"
    tree.mkdir()
    names = []
    for cut in range(0, len(data), 64):
        name = "cut-%06d.so" % cut
        (tree / name).write_bytes(data[:cut])
        names.append(name)
    rng = random.Random(7)  # fixed seed: a failure reproduces
    for i in range(CORRUPTIONS):
        b = bytearray(data)
        # Half in the first 4 KiB, where the headers and dynamic tables are.
        off = rng.randrange(min(4096, len(b))) if i % 2 else rng.randrange(len(b))
        b[off] = rng.randrange(256)
        name = "bit-%05d-at-%06d.so" % (i, off)
        (tree / name).write_bytes(bytes(b))
        names.append(name)
    (tree / "intact.so").write_bytes(data)
    names.append("intact.so")

    t0 = time.monotonic()
    r = lotest.scan(tree, args=("--library-path", d / "lib"))
    took = time.monotonic() - t0
    assert r.rc in (0, 1), r
    assert "Sanitizer" not in r.stderr and "runtime error" not in r.stderr, r.stderr[-4000:]
    paths = [f["path"] for f in r.doc["files"]]
    assert len(paths) == len(set(paths)), "a variant reported twice"
    missing = set(names) - set(paths)
    assert not missing, "not reported: %s" % sorted(missing)[:20]
    assert r.doc["summary"]["files"] == len(names), r.doc["summary"]
    assert r.file("intact.so")["verdict"] == "ok", r.file("intact.so")
    # An empty file or one cut inside the header cannot load.
    assert r.file("cut-000000.so")["loads"] is not True
    assert r.file("cut-000064.so")["verdict"] in ("unreadable", "skipped", "broken"), \
        r.file("cut-000064.so")
    assert took < len(names) * 1.0, "%.1f s for %d files" % (took, len(names))
    print("sweep: %d variants (%d cuts, %d corruptions) of %d bytes in %.1f s; %s"
          % (len(names), len(names) - CORRUPTIONS - 1, CORRUPTIONS, len(data), took,
             r.doc["summary"]))


if __name__ == "__main__":
    lotest.main(globals())
