"""Windows' loader, as Wine runs it, against leftover's on PE modules (issue 44).

MinGW-w64 builds the trees; a small host program (probe/winload_probe.c),
run under Wine as the tree's python.exe, loads each module with CPython's
LoadLibraryExW flags and says what Windows would: ok, error 126 (a DLL not
found), 193 (another machine's image), or 127 with the import Wine left
unbound (Wine binds a stub where Windows fails, so the host walks the
import address tables). leftover's verdict must agree on every module:

  - a two-branch CMake + Ninja tree (MinGW toolchain file), the seed: the
    C-API DLL drops an export by name and one by ordinal and the modules
    importing them are no longer built: stale, 127, explained from the
    pasted ImportError, cleaned, restored;
  - loose modules: a missing DLL, a forwarder kept and one to a function
    that is not there, an API-set import, a delay-load import of a missing
    DLL, a 32-bit module in a 64-bit tree, corrupt files;
  - Wine's own PE DLLs, scanned as a Windows tree (every fifth loaded).

One Wine prefix (the build's, about 10-50 s cold) serves the file; the
seed tree and the prefix are wintree.py's, shared with test_windows_exe.py.
"""
import os
import shutil

import lotest
from wintree import CC64, PYDIR, TAG, configure_build, mingw, seed_repo, setup_python, \
    wine, wine_env

CC32 = "i686-w64-mingw32-gcc"


def implib(dll, defs, out, tool="x86_64-w64-mingw32-dlltool"):
    """An import library for DLL `dll` exporting `defs` (a .def EXPORTS body)."""
    d = out.parent
    (d / (dll + ".def")).write_text("LIBRARY %s\nEXPORTS\n%s\n" % (dll, defs))
    lotest.run([tool, "-m", "i386:x86-64", "-d", d / (dll + ".def"), "-D", dll, "-l", out])
    return out


def truth(paths, dirs=(), timeout=300):
    """The probe's answer per path, loaded as CPython would by python.exe."""
    setup_python()
    env = wine_env()
    args = []
    for d in dirs:
        args += ["-d", d]
    p = lotest.run([wine(), PYDIR / "python.exe", "-p", "python311.dll"] + args +
                   [str(x) for x in paths], env=env, timeout=timeout)
    lines = [x[len("winload: "):] for x in p.stdout.splitlines()
             if x.startswith("winload: ") and not x.startswith("winload: preload")]
    assert len(lines) == len(paths), p.stdout + p.stderr
    return dict(zip([str(x) for x in paths], lines))


def leftover_says(f):
    """leftover's verdict on a file, in the probe's words."""
    if f["verdict"] == "unreadable":
        return "error 193"
    kinds = {r["kind"]: r for r in f["reasons"]}
    if f["loads"]:
        return "ok"
    if "wrong-class" in kinds:
        return "error 193"
    if "missing-library" in kinds:
        return "error 126"
    r = kinds["undefined-symbol"]
    return "127 %s!%s" % (r["library"], r["symbol"])


def assert_agree(r, root, truths):
    for path, said in truths.items():
        rel = os.path.relpath(path, root)
        got = leftover_says(r.file(rel))
        assert got.lower() == said.lower(), (rel, "leftover: " + got, "wine: " + said, r.file(rel))


def test_seed_two_branches_agree_with_wine():
    setup_python()
    d = lotest.workdir("windows-seed")
    src, build = d / "src", d / "build"
    seed_repo(src)
    configure_build(src, build)
    py = ["--python", PYDIR / "python.exe"]
    r = lotest.scan(build, args=py)
    assert r.rc == 0, r
    lotest.git(src, "checkout", "-q", "new")
    configure_build(src, build)

    seed, ordmod, kept = ("_mlirRegisterEverything" + TAG, "_ordmod" + TAG, "_mlir" + TAG)
    r = lotest.scan(build, args=py)
    assert r.rc == 1, r
    assert_agree(r, build, truth([build / seed, build / ordmod, build / kept]))
    f = r.file(seed)
    assert f["verdict"] == "stale" and f["kind"] == "python-extension", f
    assert f["arch"] == "x64-windows", f
    assert r.reasons(seed, "undefined-symbol")[0]["symbol"] == "mlirOld", f
    assert r.file(ordmod)["verdict"] == "stale", r.file(ordmod)
    assert r.reasons(ordmod, "undefined-symbol")[0]["symbol"] == "#5"
    assert r.file(kept)["verdict"] == "ok", r.file(kept)
    assert r.file("capi.dll")["verdict"] == "ok", r.file("capi.dll")
    t = lotest.leftover("scan", "--python", PYDIR / "python.exe", build)
    assert "undefined symbol: mlirOld, expected in capi.dll" in t.stdout, t.stdout

    # the message as Python prints it, pasted
    msg = ("ImportError: DLL load failed while importing _mlirRegisterEverything: "
           "The specified procedure could not be found.")
    e = lotest.leftover("explain", "--python", PYDIR / "python.exe", msg, build)
    assert e.returncode == 1, e
    assert seed in e.stdout and "capi.dll!mlirOld" in e.stdout and "stale" in e.stdout, e.stdout

    c = lotest.leftover("clean", "--python", PYDIR / "python.exe", build)
    assert c.returncode == 0, c
    assert not (build / seed).exists() and (build / kept).exists()
    assert lotest.scan(build, args=py).rc == 0
    back = lotest.leftover("restore", build)
    assert back.returncode == 0, back
    assert (build / seed).exists() and (build / ordmod).exists()
    lotest.assert_stale_not_rebuilt(r, build, [lotest.CMAKE, "--build", build])


LOOSE = {
    # name: (source, import libraries {dll: .def EXPORTS body})
    "missing_dll": ("__declspec(dllimport) int gone(void);\n"
                    "__declspec(dllexport) int f(void) { return gone(); }\n",
                    {"nothere.dll": "gone"}),
    "forward_ok": ("__declspec(dllimport) int fwdTick(void);\n"
                   "__declspec(dllexport) int f(void) { return fwdTick(); }\n",
                   {"fwd.dll": "fwdTick"}),
    "forward_gone": ("__declspec(dllimport) int fwdGone(void);\n"
                     "__declspec(dllexport) int f(void) { return fwdGone(); }\n",
                     {"fwd.dll": "fwdGone"}),
    "api_set": ("__declspec(dllimport) void __stdcall Sleep(unsigned);\n"
                "__declspec(dllexport) void f(void) { Sleep(0); }\n",
                {"api-ms-win-core-synch-l1-2-0.dll": "Sleep"}),
    "api_set_gone": ("__declspec(dllimport) int NoSuchSynch(void);\n"
                     "__declspec(dllexport) int f(void) { return NoSuchSynch(); }\n",
                     {"api-ms-win-core-synch-l1-2-0.dll": "NoSuchSynch"}),
    "python_dll": ("__declspec(dllimport) void *PyModule_Create2(void *d, int v);\n"
                   "__declspec(dllexport) void *PyInit_python_dll(void) "
                   "{ return PyModule_Create2(0, 3); }\n", {"python311.dll": "PyModule_Create2"}),
    "python_dll_gone": ("__declspec(dllimport) void *PyNoSuch(void);\n"
                        "__declspec(dllexport) void *PyInit_python_dll_gone(void) "
                        "{ return PyNoSuch(); }\n", {"python311.dll": "PyNoSuch"}),
}


def test_loose_modules_agree_with_wine():
    setup_python()
    d = lotest.workdir("windows-loose")
    # a DLL of forwarders: one to kernel32's GetTickCount, one to a function kernel32 lacks
    (d / "fwd.def").write_text("LIBRARY fwd.dll\nEXPORTS\n  fwdTick = kernel32.GetTickCount\n"
                               "  fwdGone = kernel32.NoSuchFunction\n")
    mingw(CC64, d / "fwd.dll", "int unused(void) { return 0; }\n", str(d / "fwd.def"))
    paths = []
    for name, (source, libs) in LOOSE.items():
        flags = [str(implib(dll, defs, d / ("lib%s_%s.a" % (name, dll)))) for dll, defs in libs.items()]
        paths.append(mingw(CC64, d / (name + ".pyd"), source, *flags))
    # delay-loaded, from a DLL that is not there: not needed at load time
    (d / "delay.c").write_text("__declspec(dllimport) int gone(void);\n"
                               "__declspec(dllexport) int f(void) { return gone(); }\n"
                               "void *__delayLoadHelper2(void *d, void **f) { (void)d; return *f; }\n")
    if shutil.which("lld-link-19"):
        lotest.run([CC64, "-c", "-o", d / "delay.o", d / "delay.c"])
        # lld-link delay-loads from LLVM's short import libraries, not GNU dlltool's
        implib("nothere.dll", "gone", d / "nothere.lib", tool="llvm-dlltool-19")
        lotest.run(["lld-link-19", "/dll", "/noentry", "/out:" + str(d / "delay.pyd"),
                    d / "delay.o", d / "nothere.lib", "/delayload:nothere.dll", "/export:f"])
        paths.append(d / "delay.pyd")
    # a 32-bit module where a 64-bit python.exe imports it
    lotest.need(CC32, "mingw-w64")
    paths.append(mingw(CC32, d / ("m32" + TAG), "__declspec(dllexport) int f(void) { return 1; }\n"))
    # corrupt: a real module cut short, and an MZ header with nothing behind it
    data = paths[0].read_bytes()
    (d / "cut.pyd").write_bytes(data[:700])
    (d / "mz.pyd").write_bytes(b"MZ" + b"\0" * 200)
    paths += [d / "cut.pyd", d / "mz.pyd"]

    r = lotest.scan(d, args=["--python", PYDIR / "python.exe"])
    assert r.rc == 1, r
    said = truth(paths)
    assert_agree(r, d, said)
    # what Wine said, for the record of what was held
    assert said[str(d / "missing_dll.pyd")] == "error 126"
    assert said[str(d / "forward_ok.pyd")] == "ok"
    assert said[str(d / "api_set.pyd")] == "ok"
    assert said[str(d / ("m32" + TAG))] == "error 193"
    if (d / "delay.pyd").exists():
        notes = [x["detail"] for x in r.reasons("delay.pyd", "loader-note")]
        assert any("delay-loads nothere.dll" in n for n in notes), notes
    notes = [x["detail"] for x in r.reasons("api_set.pyd", "loader-note")]
    assert any("Wine's PE DLLs" in n for n in notes), notes
    # the same module without python.exe's python311.dll: not judged, and said why
    u = lotest.scan(d)
    assert u.file("python_dll.pyd")["verdict"] == "unjudged", u.file("python_dll.pyd")
    # Windows' words, notes and arches as a warm scan keeps them
    lotest.assert_warm_as_cold(d, args=["--python", PYDIR / "python.exe"])


WINE_DLLS = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows"


def test_wine_own_dlls_agree_with_wine():
    """Wine's own PE DLLs scanned as a Windows tree (System32 itself): every
    fifth loaded by Wine, which must agree with leftover's verdict. A DLL
    whose start-up fails once bound (1114: DllMain refused; 998: it faulted,
    a Unix library of Wine's missing here) failed no binding, which is all
    a static judge knows of, and is left out."""
    setup_python()
    if not os.path.isdir(WINE_DLLS):
        wine()
    r = lotest.scan(WINE_DLLS)
    assert r.rc == 0 and r.doc["summary"]["files"] > 500, r.doc["summary"]
    dlls = sorted(p for p in os.listdir(WINE_DLLS) if p.endswith(".dll"))[::5]
    said = truth([os.path.join(WINE_DLLS, p) for p in dlls], timeout=600)
    said = {p: v for p, v in said.items() if v not in ("error 1114", "error 998")}
    assert len(said) > 90, said
    assert_agree(r, WINE_DLLS, said)


if __name__ == "__main__":
    lotest.main(globals())
