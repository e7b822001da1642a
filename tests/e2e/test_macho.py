"""Mach-O objects judged as dyld would, built here without an SDK.

Fixtures come from Debian's clang with -target arm64-apple-macos11/13 and
x86_64-apple-macos11, linked by lld 19's ld64.lld against leftover's own
libSystem text stub (fixtures/macho/cc-macos): dylibs with install names
and versions, bundles linked -undefined dynamic_lookup, a re-exporting
dylib, a weak dylib and a weak import, -flat_namespace, classic binds
(macos11) and chained fixups (macos13), a universal file (llvm-lipo).

What leftover reads of each (explain --verbose: dylibs, imports with their
library ordinal and weak flag, exports) is held against llvm-objdump's and
llvm-nm's reading, and so it is on Go's debug/macho test files. Then dyld's verdicts: the seed failure on macOS (a
module linked -undefined dynamic_lookup without the C-API dylib, needing
_mlirRegisterAllPasses by flat lookup from the dylib its sibling _mlir loads:
ok while the C API exports it, stale by the Ninja log once the rebuilt one
no longer does, explained from the pasted ImportError, cleaned, restored), a
flat symbol no sibling module's images have (broken), a two-level bind whose symbol moved to
another dylib ("Expected in"), weak dylibs and imports, a missing dylib, a
Java class file and a truncated Mach-O file.
"""
import base64
import re
import shutil
from pathlib import Path

import lotest

CC_MACOS = lotest.FIXTURES / "macho" / "cc-macos"
OBJDUMP = "llvm-objdump-19"
_built = {}


def tools():
    lotest.need("/usr/lib/llvm-19/bin/ld64.lld", "lld-19")
    lotest.need(OBJDUMP, "llvm-19")
    return lotest.workdir("macho-sdk")


def cc(target, out, source, *flags, cwd=None):
    """Compile and link C `source` (text) for macOS `target` into out."""
    src = out.parent / (out.name.replace(".", "_") + ".c")
    src.write_text(source)
    lotest.run([CC_MACOS, target, "-o", out, src] + list(flags), cwd=cwd,
               env={"CC_MACOS_SDK": str(_built["sdk"])})
    return out


def fixtures():
    """The agreement fixtures, built once for the file's tests."""
    if "dir" in _built:
        return _built["dir"], _built["files"]
    _built["sdk"] = tools()
    d = lotest.workdir("macho")
    f = {}
    dep = "int dep(int x) { return x + 1; }\nint dep2(void) { return 2; }\n"
    for target, name in (("arm64-apple-macos11", "libdep.dylib"),
                         ("arm64-apple-macos13", "libdep13.dylib"),
                         ("x86_64-apple-macos11", "libdepx86.dylib")):
        f[name] = cc(target, d / name, dep, "-dynamiclib", "-install_name", "@rpath/libdep.dylib",
                     "-Wl,-current_version,1.2.3", "-Wl,-compatibility_version,1.0.0")
    f["libweak.dylib"] = cc("arm64-apple-macos13", d / "libweak.dylib", "int w(void) { return 1; }\n",
                            "-dynamiclib", "-install_name", "@rpath/libweak.dylib")
    f["libre.dylib"] = cc("arm64-apple-macos13", d / "libre.dylib", "int re_own(void) { return 3; }\n",
                          "-dynamiclib", "-install_name", "@rpath/libre.dylib", "-Wl,-rpath,@loader_path",
                          # ld64.lld finds a re-export by an absolute rpath only
                          "-Wl,-rpath," + str(d), "-Wl,-reexport_library," + str(d / "libdep13.dylib"))
    mod = ("extern int dep(int); extern int flat_one(void); extern int re_own(void);\n"
           "extern int w(void) __attribute__((weak_import));\n"
           "extern int gone(void) __attribute__((weak_import));\n"
           "int PyInit_mod(void) { return dep(1) + flat_one() + re_own() + (w ? w() : 0)"
           " + (gone ? gone() : 0); }\n")
    for target, name, lib in (("arm64-apple-macos11", "mod_classic.so", "libdep.dylib"),
                              ("arm64-apple-macos13", "mod_chained.so", "libdep13.dylib")):
        f[name] = cc(target, d / name, mod, "-bundle", d / lib, d / "libre.dylib",
                     "-Wl,-weak_library," + str(d / "libweak.dylib"),
                     "-undefined", "dynamic_lookup", "-Wl,-rpath,@loader_path")
    f["mod_x86.so"] = cc("x86_64-apple-macos11", d / "mod_x86.so",
                         "extern int dep(int);\nint PyInit_mod_x86(void) { return dep(1); }\n",
                         "-bundle", d / "libdepx86.dylib", "-Wl,-rpath,@loader_path")
    f["flat.so"] = cc("arm64-apple-macos11", d / "flat.so",
                      "extern int dep(int);\nint f(void) { return dep(2); }\n", "-bundle",
                      d / "libdep.dylib", "-flat_namespace", "-Wl,-rpath,@loader_path",
                      "-Wl,-no_fixup_chains")
    f["universal.so"] = d / "universal.so"
    lotest.run(["llvm-lipo-19", "-create", "-output", f["universal.so"], f["mod_chained.so"],
                f["mod_x86.so"]])
    _built["dir"], _built["files"] = d, f
    return d, f


def read(path):
    """What leftover read of the Mach-O file: dylibs, imports, exports."""
    p = lotest.leftover("explain", "--verbose", path)
    # an executable is read all the same, then refused (exit 2): dlopen takes none
    assert "\n  image: " in p.stdout and p.returncode in (0, 1, 2), p
    dylibs = re.findall(r"^  dylib \d+: (\S+)", p.stdout, re.M)
    imports = {(m[0], int(m[1]), bool(m[2]))
               for m in re.findall(r"^  import: (\S+) (-?\d+)( weak)?", p.stdout, re.M)}
    exports = set(re.findall(r"^  export: (\S+)", p.stdout, re.M))
    ident = re.findall(r"^  id: (\S+)", p.stdout, re.M)
    return dylibs, imports, exports, ident, p.stdout


def short(name):
    """llvm's short name of a dylib (guessLibraryShortName): base, no .dylib, no .B."""
    base = name.rsplit("/", 1)[-1]
    base = re.sub(r"\.dylib$", "", base)
    return re.sub(r"\.[A-Z]$", "", base)


def objdump(path, arch=None):
    """llvm-objdump's reading: dylibs used, imports (name, ordinal, weak), exports."""
    args = [OBJDUMP, "--macho", "--dylibs-used", "--bind", "--lazy-bind", "--weak-bind",
            "--chained-fixups", "--exports-trie", "--rpaths"]
    if arch:
        args.append("--arch=" + arch)
    out = lotest.run(args + [path]).stdout
    dylibs = re.findall(r"^\t(\S+) \(compatibility version", out, re.M)
    exports = set(re.findall(r"^0x[0-9A-F]+\s+(\S+)", out, re.M))
    chained = re.findall(r"lib_ordinal = (-?\d+).*\n  weak_import = (\d)\n  name_offset = \d+ \((\S+)\)",
                         out)
    return dylibs, chained, out, exports


def binds(out, dylibs):
    """The classic bind and lazy bind rows as (name, ordinal, weak)."""
    specials = {"flat-namespace": -2, "main-executable": -1, "this-image": 0}
    found = {}
    table = None
    for line in out.splitlines():
        if line.endswith("table:"):
            table = line
            continue
        if not line.startswith("__") or table not in ("Bind table:", "Lazy bind table:"):
            continue
        cols = line.split()
        weak = cols[-1] == "(weak_import)"
        if weak:
            cols.pop()
        lib, sym = cols[-2], cols[-1]
        ordinal = specials.get(lib)
        if ordinal is None:
            ordinal = [short(n) for n in dylibs].index(lib) + 1
        found[(sym, ordinal)] = found.get((sym, ordinal), False) or weak
    return {(s, o, w) for (s, o), w in found.items()}


def nm_imports(path):
    """llvm-nm -m's undefined symbols: (name, short library name or 'flat', weak)."""
    out = lotest.run(["llvm-nm-19", "-m", path]).stdout
    got = set()
    for m in re.finditer(r"\(undefined(?: \[lazy bound\])?\) (weak )?external (\S+) "
                         r"\((?:from (\S+)|(dynamically looked up))\)", out):
        got.add((m.group(2), m.group(3) or "flat", bool(m.group(1))))
    return got


def test_reader_agrees_with_llvm():
    d, f = fixtures()
    for name, path in sorted(f.items()):
        if name == "universal.so":
            continue
        dylibs, imports, exports, ident, text = read(path)
        ref_dylibs, chained, out, ref_exports = objdump(path)
        assert ident + dylibs == ref_dylibs, (name, ident, dylibs, ref_dylibs)
        assert exports == ref_exports, (name, exports, ref_exports)
        if chained:
            ref = {(s, int(o), w == "1") for o, w, s in chained}
        else:
            ref = binds(out, dylibs)
        mine = {(s, o, w) for s, o, w in imports if o != -3}
        assert mine == ref, (name, mine, ref, text)
        # the symbol table's library ordinals, as llvm-nm reads them
        if "flat" not in name:
            ref_nm = nm_imports(path)
            by_nm = {(s, "flat" if o == -2 else short(dylibs[o - 1]), w) for s, o, w in mine
                     if s != "dyld_stub_binder"}
            assert by_nm <= ref_nm | {(s, l, w) for s, l, w in by_nm if s == "dyld_stub_binder"}, \
                (name, by_nm, ref_nm)
    # a weak dylib, a weak import, a re-exporting dylib, a flat image
    _, imports, _, _, text = read(f["mod_chained.so"])
    assert ("_gone", -2, True) in imports and ("_w", 3, True) in imports, text
    assert "(weak," in text and "libre.dylib (load" in text, text
    _, _, _, _, text = read(f["libre.dylib"])
    assert "@rpath/libdep.dylib (reexport" in text, text
    _, imports, _, _, text = read(f["flat.so"])
    assert all(o == -2 for _, o, _ in imports), text


def test_universal_slices():
    d, f = fixtures()
    dylibs, imports, exports, _, text = read(f["universal.so"])
    assert "a slice of a universal file" in text and "image: arm64," in text, text
    ref_dylibs, chained, _, ref_exports = objdump(f["universal.so"], arch="arm64")
    assert dylibs == ref_dylibs and exports == ref_exports, (text, ref_dylibs)
    assert {(s, o, w) for s, o, w in imports} == {(s, int(o), w == "1") for o, w, s in chained}


def test_loads_as_dyld_would():
    d, f = fixtures()
    t = lotest.workdir("macho-loads")
    for name in ("libdep13.dylib", "libre.dylib", "mod_chained.so"):
        shutil.copy(f[name], t / name)
    # libre re-exports libdep13 by its install name, @rpath/libdep.dylib
    shutil.copy(f["libdep13.dylib"], t / "libdep.dylib")
    r = lotest.scan(t)
    mod = r.file("mod_chained.so")
    # no weak dylib (libweak.dylib), no _gone anywhere: both weak, the load goes on;
    # _flat_one is found nowhere: dyld's flat-namespace message
    assert mod["verdict"] == "broken" and mod["loads"] is False, mod
    und = r.reasons("mod_chained.so", "undefined-symbol")
    assert [x["symbol"] for x in und] == ["_flat_one"], mod
    assert und[0]["detail"] == "symbol not found in flat namespace '_flat_one'", und
    assert any("libSystem.B.tbd" in x["detail"] for x in r.reasons("mod_chained.so", "loader-note"))
    assert r.file("libre.dylib")["verdict"] == "ok", r
    # a dylib exporting it, loaded by the module: found by the flat lookup
    cc("arm64-apple-macos13", t / "libre.dylib",
       "int re_own(void) { return 3; }\nint flat_one(void) { return 1; }\n", "-dynamiclib",
       "-install_name", "@rpath/libre.dylib", "-Wl,-rpath,@loader_path",
       "-Wl,-reexport_library," + str(t / "libdep13.dylib"))
    r = lotest.scan(t)
    assert r.file("mod_chained.so")["verdict"] == "ok", r.file("mod_chained.so")
    # a dylib it needs, not weak, gone: dyld's "Library not loaded"
    (t / "libdep.dylib").unlink()
    r = lotest.scan(t)
    miss = r.reasons("mod_chained.so", "missing-library")
    # the module's own need first; libre's re-export of it is missing too
    assert {x["library"] for x in miss} == {"@rpath/libdep.dylib"}, r.file("mod_chained.so")
    assert [x["object"] for x in miss][:2] == ["mod_chained.so", "libre.dylib"], miss
    assert miss[0]["detail"].startswith("Library not loaded: @rpath/libdep.dylib\n  Referenced from: ")
    assert "(no such file)" in miss[0]["detail"], miss


def test_architectures():
    """An x86_64 module loads its x86_64 dylib; an arm64 one refuses it as dyld does."""
    d, f = fixtures()
    t = lotest.workdir("macho-arch")
    shutil.copy(f["mod_x86.so"], t / "mod_x86.so")
    shutil.copy(f["libdepx86.dylib"], t / "libdep.dylib")
    r = lotest.scan(t)
    x = r.file("mod_x86.so")
    assert x["verdict"] == "ok" and x["arch"] == "x86_64-apple-macos", x
    shutil.copy(f["mod_classic.so"], t / "mod_classic.so")
    r = lotest.scan(t)
    (miss,) = [m for m in r.reasons("mod_classic.so", "missing-library")
               if m["library"] == "@rpath/libdep.dylib"]
    assert "mach-o file, but is an incompatible architecture" in miss["detail"], miss
    assert r.file("mod_classic.so")["arch"] == "arm64-apple-macos", r


def test_two_level_symbol_moved():
    """A symbol bound to libA by two-level namespace, moved to libB: broken, 'Expected in'."""
    tools_dir = fixtures()
    t = lotest.workdir("macho-moved")
    cc("arm64-apple-macos13", t / "libA.dylib", "int moved(void) { return 1; }\n", "-dynamiclib",
       "-install_name", "@rpath/libA.dylib", "-Wl,-compatibility_version,2.0")
    cc("arm64-apple-macos13", t / "libB.dylib", "int other(void) { return 1; }\n", "-dynamiclib",
       "-install_name", "@rpath/libB.dylib")
    cc("arm64-apple-macos13", t / "libuser.dylib", "extern int moved(void);\nint use(void) { return moved(); }\n",
       "-dynamiclib", "-install_name", "@rpath/libuser.dylib", t / "libA.dylib", t / "libB.dylib",
       "-Wl,-rpath,@loader_path")
    assert lotest.scan(t).rc == 0
    cc("arm64-apple-macos13", t / "libA.dylib", "int left(void) { return 1; }\n", "-dynamiclib",
       "-install_name", "@rpath/libA.dylib")
    cc("arm64-apple-macos13", t / "libB.dylib", "int moved(void) { return 1; }\n", "-dynamiclib",
       "-install_name", "@rpath/libB.dylib")
    r = lotest.scan(t)
    f = r.file("libuser.dylib")
    assert f["verdict"] == "broken", f
    (u,) = r.reasons("libuser.dylib", "undefined-symbol")
    assert u["symbol"] == "_moved" and u["library"] == "libA.dylib", u
    assert u["detail"] == ("Symbol not found: _moved\n  Referenced from: %s\n  Expected in: %s"
                           % (t / "libuser.dylib", t / "libA.dylib")), u
    text = lotest.leftover("scan", t).stdout
    assert "undefined symbol: _moved, expected in libA.dylib" in text, text
    # libA is older than libuser was linked against: a warning, which current dyld does not check
    x = lotest.leftover("explain", "--verbose", t / "libuser.dylib").stdout
    assert "needs @rpath/libA.dylib compatibility version 2.0.0 or later" in x, x
    assert "(not checked by current dyld)" in x, x


def test_interpreter_first():
    """A flat lookup searches the interpreter first: --python's, else its stand-in's _Py*."""
    fixtures()
    t = lotest.workdir("macho-python")
    py = cc("arm64-apple-macos13", t / "python3.11",
            "void *PyModule_Create2(void *d, int v) { return d; }\nint main(void) { return 0; }\n")
    (t / "tree").mkdir()
    mod = "tree/m.cpython-311-darwin.so"
    cc("arm64-apple-macos13", t / mod,
       "extern void *PyModule_Create2(void *, int); extern int PyNotThere(void);\n"
       "void *PyInit_m(void) { PyNotThere(); return PyModule_Create2(0, 3); }\n",
       "-bundle", "-undefined", "dynamic_lookup")
    r = lotest.scan(t / "tree")
    f = r.file("m.cpython-311-darwin.so")
    assert f["verdict"] == "ok" and f["host"] == "python (stand-in)", f
    assert any("interpreter's symbols by prefix" in x["detail"]
               for x in r.reasons("m.cpython-311-darwin.so", "loader-note")), f
    r = lotest.scan(t / "tree", args=("--python", py))
    f = r.file("m.cpython-311-darwin.so")
    assert f["verdict"] == "broken" and f["host"] == str(py), f
    assert [x["symbol"] for x in r.reasons("m.cpython-311-darwin.so", "undefined-symbol")] == \
        ["_PyNotThere"], f


def test_not_macho_and_malformed():
    d, f = fixtures()
    t = lotest.workdir("macho-bad")
    # a Java class file starts 0xcafebabe too, with its version where a fat header has its count
    (t / "Main.so").write_bytes(b"\xca\xfe\xba\xbe\x00\x00\x00\x41" + b"\x00" * 64)
    (t / "cut.dylib").write_bytes(f["libdep13.dylib"].read_bytes()[:700])
    # a framework: its binary is a library, its resources and links no candidates
    fw = t / "X.framework" / "Versions" / "A"
    (fw / "Resources").mkdir(parents=True)
    (fw / "Resources" / "Info.plist").write_text("<plist/>\n")
    shutil.copy(f["libdep13.dylib"], fw / "X")
    (fw.parent / "Current").symlink_to("A")
    (t / "X.framework" / "X").symlink_to("Versions/Current/X")
    # a .dSYM companion: Mach-O of filetype MH_DSYM (0xa), debug information only
    dsym = t / "libdep.dylib.dSYM" / "Contents" / "Resources" / "DWARF"
    dsym.mkdir(parents=True)
    data = bytearray(f["libdep13.dylib"].read_bytes())
    data[12] = 0xa
    (dsym / "libdep.dylib").write_bytes(bytes(data))
    r = lotest.scan(t)
    assert r.file("X.framework/Versions/A/X")["verdict"] == "ok", r
    assert not [p for p in r.files if "Resources/" in p and "DWARF" not in p or p.endswith("Current")], r
    d = r.file("libdep.dylib.dSYM/Contents/Resources/DWARF/libdep.dylib")
    assert d["verdict"] == "skipped" and "debug information" in d["reasons"][0]["detail"], d
    assert r.file("Main.so")["verdict"] == "skipped", r
    assert r.reasons("Main.so", "not-elf"), r
    assert r.file("cut.dylib")["verdict"] == "unreadable", r
    assert "cut.dylib" in r.reasons("cut.dylib", "unreadable")[0]["detail"], r


GO_TESTDATA = "/usr/share/go-1.19/src/debug/macho/testdata"


def test_go_debug_macho_testdata():
    """Go's debug/macho test files (Debian's golang source): the same reading as llvm's."""
    lotest.need(GO_TESTDATA + "/hello.c", "golang-1.19-src")
    t = lotest.workdir("macho-go")
    for b64 in sorted(Path(GO_TESTDATA).glob("*.base64")):
        (t / b64.stem).write_bytes(base64.b64decode(b64.read_bytes()))
    for name in ("gcc-amd64-darwin-exec", "gcc-amd64-darwin-exec-debug",
                 "clang-amd64-darwin-exec-with-rpath", "fat-gcc-386-amd64-darwin-exec"):
        dylibs, imports, exports, ident, text = read(t / name)
        ref_dylibs, chained, out, ref_exports = objdump(t / name, arch="x86_64")
        assert dylibs == ref_dylibs and exports == ref_exports, (name, text, out)
        if "imports from dyld-info" in text:
            assert imports == binds(out, dylibs), (name, text, out)
        else:
            assert "imports from symtab" in text or not imports, text
            by_nm = {(s, short(dylibs[o - 1]), w) for s, o, w in imports}
            assert by_nm == nm_imports(t / name), (name, text)
    for name in ("gcc-386-darwin-exec", "clang-386-darwin-exec-with-rpath"):
        p = lotest.leftover("explain", t / name)
        assert p.returncode == 2 and "32-bit Mach-O image" in p.stderr, p
    # the malformed one (its LC_DYSYMTAB leaves the symbol table): unreadable, no crash
    shutil.copy(t / "gcc-amd64-darwin-exec-with-bad-dysym", t / "bad.dylib")
    r = lotest.scan(t)
    assert r.file("bad.dylib")["verdict"] == "unreadable", r
    assert "LC_DYSYMTAB" in r.reasons("bad.dylib", "unreadable")[0]["detail"], r


SEED_A = {
    "capi.c": "int mlirRegisterAllPasses(void) { return 42; }\nint mlirContextCreate(void) { return 1; }\n",
    # as MLIR links them: _mlir against the C API, _mlirRegisterEverything without it,
    # finding mlirRegisterAllPasses in what _mlir loaded first (dyld.c's top)
    "mlir.c": "extern int mlirContextCreate(void); extern void *PyModule_Create2(void *, int);\n"
              "void *PyInit__mlir(void) { mlirContextCreate(); return PyModule_Create2(0, 3); }\n",
    "everything.c": "extern int mlirRegisterAllPasses(void); extern void *PyModule_Create2(void *, int);\n"
                    "void *PyInit__mlirRegisterEverything(void) { mlirRegisterAllPasses();"
                    " return PyModule_Create2(0, 3); }\n",
}
PKG = "python_packages/mlir/_mlir_libs"
STALE = PKG + "/_mlirRegisterEverything.cpython-311-darwin.so"


CAPI = PKG + "/libMLIRPythonCAPI.dylib"
MLIR = PKG + "/_mlir.cpython-311-darwin.so"


def seed_manifest(everything):
    """branch-a's build.ninja builds _mlirRegisterEverything; branch-b's does not."""
    text = ("cc = %s arm64-apple-macos11\n"
            "rule dylib\n  command = $cc -dynamiclib -o $out $in -install_name @rpath/$name\n"
            "rule module\n  command = $cc -bundle -o $out $in -undefined dynamic_lookup"
            " -Wl,-rpath,@loader_path\n"
            "build %s: dylib capi.c\n  name = libMLIRPythonCAPI.dylib\n"
            "build %s: module mlir.c %s\n" % (CC_MACOS, CAPI, MLIR, CAPI))
    if everything:
        text += "build %s: module everything.c\n" % STALE
    return text


def test_seed_flat_namespace_twobranch():
    fixtures()
    src = lotest.workdir("macho-seed") / "src"
    src.mkdir()
    env = {"CC_MACOS_SDK": str(_built["sdk"])}
    for name, text in SEED_A.items():
        (src / name).write_text(text)
    (src / "build.ninja").write_text(seed_manifest(True))
    (src / ".gitignore").write_text("python_packages/\n.ninja_*\n")
    lotest.git(src, "init", "-q", "-b", "branch-a")
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-q", "-m", "bindings that register every pass")
    lotest.git(src, "checkout", "-q", "-b", "branch-b")
    (src / "capi.c").write_text("int mlirContextCreate(void) { return 1; }\n")
    (src / "build.ninja").write_text(seed_manifest(False))
    lotest.git(src, "commit", "-q", "-am", "drop _mlirRegisterEverything and mlirRegisterAllPasses")
    lotest.git(src, "checkout", "-q", "branch-a")
    lotest.run(["ninja"], cwd=src, env=env)
    # linked without the C API: its only way to _mlirRegisterAllPasses is the flat lookup
    dylibs, imports, _, _, text = read(src / STALE)
    assert ("_mlirRegisterAllPasses", -2, False) in imports, text
    assert dylibs == ["/usr/lib/libSystem.B.dylib"], text
    r = lotest.scan(src)
    assert r.rc == 0 and r.file(STALE)["verdict"] == "ok", r
    (note,) = [x for x in r.reasons(STALE, "loader-note") if x["library"]]
    assert note["library"] == CAPI and note["object"] == MLIR, note
    assert note["symbol"] == "_mlirRegisterAllPasses", note
    assert note["detail"].startswith("_mlirRegisterAllPasses found by flat lookup in "
                                     "libMLIRPythonCAPI.dylib, assumed loaded by "
                                     "_mlir.cpython-311-darwin.so"), note

    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.run(["ninja"], cwd=src, env=env)
    assert (src / STALE).exists()
    r = lotest.scan(src)
    assert r.rc == 1, r
    f = r.file(STALE)
    assert f["kind"] == "python-extension" and f["loads"] is False, f
    # dyld's words, notes and arches as a warm scan keeps them
    lotest.assert_warm_as_cold(src)
    assert f["verdict"] == "stale" and f["orphan"] is True, f
    (u,) = r.reasons(STALE, "undefined-symbol")
    assert u["symbol"] == "_mlirRegisterAllPasses", u
    assert u["detail"] == "symbol not found in flat namespace '_mlirRegisterAllPasses'", u
    assert r.file(MLIR)["verdict"] == "ok", r
    assert r.file(CAPI)["verdict"] == "ok", r

    msg = ("ImportError: dlopen(%s, 0x0002): symbol not found in flat namespace "
           "'_mlirRegisterAllPasses'" % (src / STALE))
    x = lotest.leftover("explain", msg)
    assert x.returncode == 1, x
    assert "verdict: stale" in x.stdout and "(the one in your message)" in x.stdout, x.stdout
    assert "symbol not found in flat namespace '_mlirRegisterAllPasses'" in x.stdout, x.stdout

    lotest.assert_stale_not_rebuilt(r, src, ["ninja"], env=env)
    lotest.run(["ninja"], cwd=src, env=env)
    # put it back to clean it as a user would
    lotest.git(src, "checkout", "-q", "branch-a")
    lotest.run(["ninja"], cwd=src, env=env)
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.run(["ninja"], cwd=src, env=env)
    c = lotest.leftover("clean", src)
    assert c.returncode == 0, c
    assert not (src / STALE).exists(), c.stdout
    assert lotest.scan(src).rc == 0
    back = lotest.leftover("restore", src)
    assert back.returncode == 0 and (src / STALE).exists(), back


def test_flat_symbol_no_sibling_has():
    """A module's flat lookup finds what its siblings load (not one whose own load fails), nothing else."""
    fixtures()
    pkg = lotest.workdir("macho-siblings") / "pkg"
    pkg.mkdir()
    cc("arm64-apple-macos13", pkg / "libcore.dylib", "int core(void) { return 1; }\n", "-dynamiclib",
       "-install_name", "@rpath/libcore.dylib")
    # in the directory, but loaded by no module: never in the process
    cc("arm64-apple-macos13", pkg / "libaside.dylib", "int nowhere(void) { return 1; }\n",
       "-dynamiclib", "-install_name", "@rpath/libaside.dylib")
    mod = ("extern int %s(void); extern void *PyModule_Create2(void *, int);\n"
           "void *PyInit_%s(void) { %s(); return PyModule_Create2(0, 3); }\n")
    flags = ("-bundle", "-undefined", "dynamic_lookup", "-Wl,-rpath,@loader_path")
    cc("arm64-apple-macos13", pkg / "_a.cpython-311-darwin.so", mod % ("core", "_a", "core"),
       pkg / "libcore.dylib", *flags)
    cc("arm64-apple-macos13", pkg / "_b.cpython-311-darwin.so", mod % ("core", "_b", "core"), *flags)
    cc("arm64-apple-macos13", pkg / "_c.cpython-311-darwin.so", mod % ("nowhere", "_c", "nowhere"),
       *flags)
    # a module that would map it, but whose own dylib is gone: its import fails, it maps nothing
    cc("arm64-apple-macos13", pkg / "libnw.dylib", "int nowhere(void) { return 1; }\n",
       "-dynamiclib", "-install_name", "@rpath/libnw.dylib")
    cc("arm64-apple-macos13", pkg / "libgone.dylib", "int gone(void) { return 1; }\n",
       "-dynamiclib", "-install_name", "@rpath/libgone.dylib")
    cc("arm64-apple-macos13", pkg / "_d.cpython-311-darwin.so", mod % ("nowhere", "_d", "nowhere"),
       pkg / "libnw.dylib", pkg / "libgone.dylib", *flags)
    (pkg / "libgone.dylib").unlink()
    r = lotest.scan(pkg)
    assert r.reasons("_d.cpython-311-darwin.so", "missing-library"), r
    assert r.file("_b.cpython-311-darwin.so")["verdict"] == "ok", r.file("_b.cpython-311-darwin.so")
    assert [(x["library"], x["object"]) for x in r.reasons("_b.cpython-311-darwin.so", "loader-note")
            if x["library"]] == [("libcore.dylib", "_a.cpython-311-darwin.so")], r
    c = r.file("_c.cpython-311-darwin.so")
    assert c["verdict"] == "broken" and c["loads"] is False, c
    (u,) = r.reasons("_c.cpython-311-darwin.so", "undefined-symbol")
    assert u["detail"] == "symbol not found in flat namespace '_nowhere'", u
    x = lotest.leftover("explain", pkg / "_b.cpython-311-darwin.so")
    assert x.returncode == 0 and "assumed loaded by _a.cpython-311-darwin.so" in x.stdout, x.stdout


if __name__ == "__main__":
    lotest.main(globals())
