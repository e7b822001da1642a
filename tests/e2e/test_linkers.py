"""Libraries made by each linker Debian has, against the real loader.

leftover reads a shared library's undefined symbols only as far as the
first symbol its GNU hash table holds (elf_read.c, undef_bound): linkers
sort the hashed symbols last and hash only defined ones in a library. This
holds it to that, for ld.bfd, gold, lld and mold: a library using a
provider's symbols in every way a library can (called through the PLT, its
address taken in code and in initialised data, a variable, a thread-local
variable, a versioned function), beside its own 200 exported functions
that fill the hashed part of its table, is judged with a provider lacking
each one in turn. So is a library that exports nothing, whose table hashes
nothing (ld.bfd then writes symoffset 1 however many symbols precede).
Truth: dlopen(RTLD_NOW) in a child; the linkers are installed from Debian
when missing.
"""
import shutil

import lotest

# (what is left out of the provider, the reason's kind, and the symbol or
# version it names: what the loader's message names)
USES = [
    ("NO_CALL", "undefined-symbol", "f_call"),
    ("NO_ADDR", "undefined-symbol", "f_addr"),
    ("NO_INIT", "undefined-symbol", "f_init"),
    ("NO_DATA", "undefined-symbol", "d_var"),
    ("NO_TLS", "undefined-symbol", "t_var"),
    ("NO_VERS", "missing-version", "VERS_1"),
]

PROVIDER = """
#ifndef NO_CALL
int f_call(void) { return 1; }
#endif
#ifndef NO_ADDR
int f_addr(void) { return 2; }
#endif
#ifndef NO_INIT
int f_init(void) { return 3; }
#endif
#ifndef NO_DATA
int d_var = 4;
#endif
#ifndef NO_TLS
__thread int t_var = 5;
#endif
int f_ver(void) { return 6; }
"""

USER = """
extern int f_call(void), f_addr(void), f_init(void), f_ver(void);
extern int d_var;
extern __thread int t_var;
int (*const init_ptr)(void) = f_init;
int (*volatile taken)(void);
int use(void) { taken = f_addr; return f_call() + d_var + t_var + f_ver() + init_ptr(); }
""" + "".join("int own_%d(void) { return %d; }\n" % (i, i) for i in range(200))

# exports nothing: every symbol of its table is undefined, none hashed
HIDDEN = """
extern int f_call(void);
__attribute__((visibility("hidden"))) int hidden_use(void) { return f_call(); }
__attribute__((used)) static int (*keep)(void) = hidden_use;
"""

LINKERS = [
    ("bfd", "ld.bfd", "binutils"),
    ("gold", "ld.gold", "binutils"),
    ("lld", "ld.lld", "lld"),
    ("mold", "mold", "mold"),
]


def provider(out, linker, *defines):
    """libprov.so, f_ver in version node VERS_1, or VERS_2 under NO_VERS
    (a provider with no versions at all trips an assertion in glibc's
    loader instead of failing the load)."""
    script = out.parent / "prov.map"
    out.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("VERS_%d { global: f_ver; };\n" % (2 if "NO_VERS" in defines else 1))
    return lotest.cc(out, PROVIDER, "-fuse-ld=" + linker, "-Wl,--version-script=%s" % script,
                     *["-D" + d for d in defines])


def build(top, linker):
    """Under top: full/ with libuse.so and libhidden.so over the whole
    provider, and one directory per USES entry with copies of both over a
    provider lacking that use. Returns the directories, full/ first."""
    full = top / "full"
    provider(full / "libprov.so", linker)
    for name, source in (("libuse.so", USER), ("libhidden.so", HIDDEN)):
        lotest.cc(full / name, source, "-fuse-ld=" + linker, "-L", full, "-lprov",
                  "-Wl,-rpath,$ORIGIN", "-Wl,--hash-style=gnu")
    dirs = [full]
    for define, _, _ in USES:
        d = top / define.lower()
        provider(d / "libprov.so", linker, define)
        for name in ("libuse.so", "libhidden.so"):
            shutil.copy(full / name, d / name)
        dirs.append(d)
    return dirs


def test_each_linkers_libraries_are_judged_as_the_loader_does():
    work = lotest.workdir("linkers")
    for linker, program, package in LINKERS:
        lotest.need(program, package)
        top = work / linker
        dirs = build(top, linker)
        rels = [str((d / n).relative_to(top)) for d in dirs for n in ("libuse.so", "libhidden.so")]
        truth = lotest.dlopen([top / rel for rel in rels])
        r = lotest.scan(top)
        for rel, answer in zip(rels, truth):
            f = r.file(rel)
            assert f["loads"] is (answer == "ok"), (linker, rel, answer, f)
        # what each library lacks where its provider does: named as the loader names it
        expect = dict(zip(rels, truth))
        assert expect["full/libuse.so"] == "ok" and expect["full/libhidden.so"] == "ok", expect
        for define, kind, name in USES:
            rel = define.lower() + "/libuse.so"
            field = "version" if kind == "missing-version" else "symbol"
            assert name in expect[rel], (linker, rel, expect[rel])
            assert [x[field] for x in r.reasons(rel, kind)] == [name], (linker, r.file(rel))
        assert "f_call" in expect["no_call/libhidden.so"], expect
        assert [x["symbol"] for x in r.reasons("no_call/libhidden.so", "undefined-symbol")] == \
            ["f_call"], (linker, r.file("no_call/libhidden.so"))
        assert r.rc == 1, r


if __name__ == "__main__":
    lotest.main(globals())
