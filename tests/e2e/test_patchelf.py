"""Libraries patchelf rewrote, against the real loader.

auditwheel, conda and their kind give a built library a new RPATH with
patchelf, which writes the tables it grows (the dynamic strings, often the
symbols and their hash) past the end of the file: the tables are then
megabytes apart, with the code between. A scan reads a candidate for its
judge alone in one of three ways (elf_read.c): the whole file when it is
small, each table with a read of its own when they fit the judge's buffer
but their span does not, and a mapping of the span when neither fits.
Sizes here meet each: a small library; one with 2 MiB of data between its
tables; one with as much and 20,000 exported functions, whose tables
alone are over the buffer's 256 KiB. Each uses a provider's function, its
variable and its versioned function, and its copies sit beside providers
lacking each one: judged as dlopen(RTLD_NOW) in a child judges them, with
the missing name reported. (A way that fails falls back to the resolver's
own read, so that this holds the verdicts, not the way: unit.resolve's
test_tables_patchelf_moved_are_read_for_the_judge_alone holds that.)
"""
import shutil

import lotest

# (what is left out of the provider, the reason's kind, the name the loader gives)
USES = [
    ("NO_CALL", "undefined-symbol", "f_call"),
    ("NO_DATA", "undefined-symbol", "d_var"),
    ("NO_VERS", "missing-version", "VERS_1"),
]

PROVIDER = """
#ifndef NO_CALL
int f_call(void) { return 1; }
#endif
#ifndef NO_DATA
int d_var = 2;
#endif
int f_ver(void) { return 3; }
"""

USE = """
extern int f_call(void), f_ver(void);
extern int d_var;
int use(void) { return f_call() + d_var + f_ver(); }
"""

# 2 MiB of code-side bytes, which patchelf leaves between the old tables and its new ones
PAD = "const char pad[2 << 20] = { 1 };\n"

OWN = "".join("int own_%d(void) { return %d; }\n" % (i, i) for i in range(20000))

LIBRARIES = {
    "libsmall.so": USE,
    "libpadded.so": USE + PAD,
    "libexports.so": USE + PAD + OWN,
}

# longer than any string table has room for in place: patchelf writes a new one at the end
RPATH = "$ORIGIN:/opt/vendor/" + "x" * 300


# elf.h's LO_ELF_BUF_MAX
BUFFER = 256 << 10


def tables(path):
    """The span of the file the tables read in place lie across, and their
    bytes, as readelf lists them."""
    lo, hi, size = None, 0, 0
    for line in lotest.run(["readelf", "-SW", path]).stdout.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 6 and f[1] in (".dynsym", ".dynstr", ".gnu.hash", ".gnu.version"):
            off, n = int(f[4], 16), int(f[5], 16)
            lo = off if lo is None else min(lo, off)
            hi, size = max(hi, off + n), size + n
    return hi - lo, size


def provider(out, *defines):
    """libprov.so, f_ver in version node VERS_1, or VERS_2 under NO_VERS."""
    out.parent.mkdir(parents=True, exist_ok=True)
    script = out.parent / "prov.map"
    script.write_text("VERS_%d { global: f_ver; };\n" % (2 if "NO_VERS" in defines else 1))
    lotest.cc(out, PROVIDER, "-Wl,--version-script=%s" % script, *["-D" + d for d in defines])


def test_patchelf_rewritten_libraries_are_judged_as_the_loader_does():
    lotest.need("patchelf", "patchelf")
    top = lotest.workdir("patchelf")
    full = top / "full"
    provider(full / "libprov.so")
    for name, source in LIBRARIES.items():
        lotest.cc(full / name, source, "-L", full, "-lprov", "-Wl,--hash-style=gnu")
        lotest.run(["patchelf", "--set-rpath", RPATH, str(full / name)])
    dirs = [full]
    for define, _, _ in USES:
        d = top / define.lower()
        provider(d / "libprov.so", define)
        for name in LIBRARIES:
            shutil.copy(full / name, d / name)
        dirs.append(d)

    # each way of reading is met: (span, bytes) of the tables against the buffer's size
    assert tables(full / "libsmall.so")[0] < (full / "libsmall.so").stat().st_size < BUFFER
    span, size = tables(full / "libpadded.so")
    assert size < BUFFER < span, (span, size)
    assert tables(full / "libexports.so")[1] > BUFFER

    rels = [str((d / n).relative_to(top)) for d in dirs for n in LIBRARIES]
    truth = dict(zip(rels, lotest.dlopen([top / rel for rel in rels])))
    r = lotest.scan(top)
    for rel, answer in truth.items():
        assert r.file(rel)["loads"] is (answer == "ok"), (rel, answer, r.file(rel))
    for name in LIBRARIES:
        assert truth["full/" + name] == "ok", truth
        for define, kind, missing in USES:
            rel = define.lower() + "/" + name
            field = "version" if kind == "missing-version" else "symbol"
            assert missing in truth[rel], (rel, truth[rel])
            assert [x[field] for x in r.reasons(rel, kind)] == [missing], r.file(rel)
    assert r.rc == 1, r


if __name__ == "__main__":
    lotest.main(globals())
