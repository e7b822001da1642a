"""leftover.exe, cross-built from this tree with MinGW-w64, does the Linux build's work under Wine.

ci/build-windows builds it into the Linux build's windows/ folder against
the static libraries of ci/build-static-deps (ci/test builds both once a
run, so here it is a no-op then; a failed build fails this test). Then,
under Wine, in the build's one prefix:

  - --version says what the Linux program says;
  - a scan of a small MinGW-built tree, a git repository built by a
    hand-written build.ninja (a DLL still built, one the last commit stopped
    building, a .pyd importing a DLL that is gone, one that loads), given
    as a Z: path with backslashes and an "é", gives the same JSON as the Linux
    build's scan of it but for the root's spelling, and the stale verdict
    is held against ninja;
  - clean moves the stale DLL into the quarantine, restore brings it back
    byte for byte;
  - --library-path takes Windows' list, "Z:\\a;C:\\b": the DLL the .pyd
    lacks is found in the second directory;
  - run from C:, it scans a root on Z: whole, and takes a Windows
    XDG_CACHE_HOME.
"""
import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
import lotest  # noqa: E402
from test_deps import wine_env, windows_path  # noqa: E402

CC = "x86_64-w64-mingw32-gcc"
# the Linux build this test belongs to: BUILD/auditor/leftover
BUILD = Path(lotest.LEFTOVER).resolve().parents[1]

BUILD_NINJA = """rule dll
  command = %s -shared -o $out $in $libs
build out/libkeep.dll: dll keep.c
build out/libold.dll: dll old.c
build out/libgone.dll: dll gone.c
build out/ok.cp311-win_amd64.pyd: dll ok.c | out/libkeep.dll
  libs = out/libkeep.dll
build out/lost.cp311-win_amd64.pyd: dll lost.c | out/libgone.dll
  libs = out/libgone.dll
""" % CC

SOURCES = {
    "keep.c": "__declspec(dllexport) int keep(void) { return 1; }\n",
    "old.c": "__declspec(dllexport) int old(void) { return 2; }\n",
    "gone.c": "__declspec(dllexport) int gone(void) { return 3; }\n",
    "ok.c": "__declspec(dllimport) int keep(void);\n"
            "__declspec(dllexport) int PyInit_ok(void) { return keep(); }\n",
    "lost.c": "__declspec(dllimport) int gone(void);\n"
              "__declspec(dllexport) int PyInit_lost(void) { return gone(); }\n",
}


def build_exe():
    """ci/build-windows into BUILD/windows; the path of leftover.exe."""
    out = lotest.run([str(lotest.SOURCE_DIR / "ci" / "build-windows")], timeout=1800,
                     env={"LEFTOVER_WINDOWS_BUILD_DIR": str(BUILD / "windows")})
    exe = Path(out.stdout.strip().splitlines()[-1])
    assert exe.is_file(), out
    return exe


def make_tree(root):
    """The tree as its second commit left it: libold.dll and libgone.dll no
    longer built (libgone.dll deleted by hand too), their outputs still there."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    lotest.git(root, "init", "-q")
    for name, text in SOURCES.items():
        (root / name).write_text(text)
    (root / "build.ninja").write_text(BUILD_NINJA)
    lotest.git(root, "add", "-A")
    lotest.git(root, "commit", "-q", "-m", "first")
    lotest.run(["ninja", "-j1"], cwd=root)
    (root / "build.ninja").write_text("".join(
        line for line in BUILD_NINJA.splitlines(True) if "old" not in line))
    (root / "old.c").unlink()
    lotest.git(root, "commit", "-q", "-am", "second: libold.dll is no longer built")
    (root / "out" / "libgone.dll").unlink()


def wine(exe, *args, cwd=None, env=None):
    # Wine reads the Unix command line in the locale's charset: UTF-8, for the root's "é"
    return lotest.run(["wine", str(exe), *map(str, args)],
                      env=dict(wine_env(), LC_ALL="C.UTF-8", **(env or {})),
                      cwd=cwd, timeout=300, check=False)


def test_exe_scans_cleans_and_restores_as_the_linux_build():
    exe = build_exe()
    lotest.run(["wine", "cmd", "/c", "exit"], env=wine_env(), timeout=300)  # the prefix, once

    r = wine(exe, "--version")
    assert r.returncode == 0, r
    assert r.stdout.strip() == lotest.leftover("--version").stdout.strip(), r

    # a space and a letter the ANSI code page may not have: arguments are read as UTF-16
    root = lotest.workdir("exe") / "deux commits, é"
    make_tree(root)
    linux = lotest.scan(root)
    assert linux.rc == 1, linux
    assert linux.file("out/libold.dll")["verdict"] == "stale", linux
    assert linux.file("out/lost.cp311-win_amd64.pyd")["verdict"] == "broken", linux
    assert linux.file("out/ok.cp311-win_amd64.pyd")["verdict"] == "ok", linux

    win = lotest.Scan(wine(exe, "scan", "--format", "json", windows_path(root)))
    assert win.rc == linux.rc, win
    # the root as Windows spells it (realpath: drive, '/'), in "root" and the trees' "dir"
    win_root = windows_path(root).replace("\\", "/")
    assert win.doc["root"] == win_root, win
    # but the Linux build's notes of Wine's DLLs standing in for System32, which
    # leftover.exe has itself
    assert not [r for f in win.doc["files"] for r in f["reasons"] if r["kind"] == "loader-note"]
    for f in linux.doc["files"]:
        f["reasons"] = [r for r in f["reasons"] if r["kind"] != "loader-note"]
    assert json.dumps(win.doc, sort_keys=True, indent=1, ensure_ascii=False).replace(
        win_root, str(root)) == \
        json.dumps(linux.doc, sort_keys=True, indent=1, ensure_ascii=False)

    old = (root / "out" / "libold.dll").read_bytes()
    r = wine(exe, "clean", ".", cwd=root)
    # 1 as on Linux: the broken .pyd stays (clean takes only stale files by default)
    assert r.returncode == 1 and "1 broken file left in place" in r.stdout, r
    assert not (root / "out" / "libold.dll").exists(), r
    moved = list((root / ".leftover.d" / "quarantine").glob("*/out/libold.dll"))
    assert len(moved) == 1 and moved[0].read_bytes() == old, r
    r = wine(exe, "restore", ".", cwd=root)
    assert r.returncode == 0, r
    assert (root / "out" / "libold.dll").read_bytes() == old, r

    # --library-path as a Windows user writes it, ';' between the entries, each
    # with its drive's ':' (cut at ':', C:\leftover-exe-side would be the path
    # \leftover-exe-side on the current drive, Z:): libgone.dll, gone from the
    # tree, is found on C:
    side = Path(wine_env()["WINEPREFIX"]) / "drive_c" / "leftover-exe-side"
    shutil.rmtree(side, ignore_errors=True)
    side.mkdir(parents=True)
    lotest.run([CC, "-shared", "-o", side / "libgone.dll", root / "gone.c"])
    dirs = windows_path(root) + ";C:\\leftover-exe-side"
    r = lotest.Scan(wine(exe, "scan", "--format", "json", "--library-path", dirs,
                         windows_path(root)))
    assert r.file("out/lost.cp311-win_amd64.pyd")["verdict"] == "ok", r
    shutil.rmtree(side)

    lotest.assert_stale_not_rebuilt(win, root, ["ninja", "-j1"])


def test_exe_run_from_drive_c_scans_a_z_root_and_takes_a_windows_cache_dir():
    """From a directory on C:, a root on Z: is scanned whole: the rules' directory
    compiled in ("/work/.../rules", no drive) is on the program's drive, not
    C:'s (it was C:\\work\\...: no rules, no candidate, 0 files). And
    XDG_CACHE_HOME may be a Windows absolute path, "Z:\\..."."""
    exe = build_exe()
    work = lotest.workdir("drive")
    (work / "tree").mkdir()
    lotest.run([CC, "-shared", "-o", work / "tree" / "liba.dll", "-x", "c", "-"],
               input=SOURCES["keep.c"])
    drive_c = Path(wine_env()["WINEPREFIX"]) / "drive_c"

    r = lotest.Scan(wine(exe, "scan", "--format", "json", windows_path(work / "tree"),
                         cwd=drive_c))
    assert r.rc == 0 and [f["path"] for f in r.doc["files"]] == ["liba.dll"], r

    cache = windows_path(work / "cache")
    r = wine(exe, "cache", "info", windows_path(work / "tree"), cwd=drive_c,
             env={"XDG_CACHE_HOME": cache})
    assert r.returncode == 0 and cache + "/leftover/state/" in r.stdout, r


if __name__ == "__main__":
    lotest.main(globals())
