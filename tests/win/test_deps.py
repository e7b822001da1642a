"""leftover.exe's libraries, built by ci/build-static-deps for MinGW-w64, work under Wine.

ci/build-static-deps x86_64-w64-mingw32 builds libgit2, jansson and nettle
(with http-parser and pcre2) as static archives from Debian's source
packages, cached in the checkout's build/static-deps (ci/test builds it
once for the whole run; here it is a no-op then). gitprobe.c, linked
statically against the three, opens a git repository on a Z: path with
backslashes under Wine and prints its HEAD, the commit's id and the
SHA-256 of the commit object (nettle) as JSON (jansson): each field is
held against git and hashlib on the same repository. The program must
import nothing but DLLs Windows itself has.
"""
import hashlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
import lotest  # noqa: E402

TRIPLET = "x86_64-w64-mingw32"
MINGW_ROOT = Path("/usr") / TRIPLET


def wine_env():
    """Wine headless and quiet, in the build dir's own prefix (made on first use):
    no display, no debug channels, no Mono or Gecko installer."""
    return {"WINEPREFIX": os.environ["LEFTOVER_WINEPREFIX"], "DISPLAY": "",
            "WINEDEBUG": "-all", "WINEDLLOVERRIDES": "mscoree,mshtml="}


def windows_path(path):
    """Wine's Z: drive is the root of this machine's file system."""
    return "Z:" + str(path).replace("/", "\\")


def build_probe(out):
    """gitprobe.exe, linked -static against the deps' prefix and MinGW's zlib."""
    t = time.time()
    prefix = lotest.run([str(lotest.SOURCE_DIR / "ci" / "build-static-deps"), TRIPLET],
                        timeout=1800).stdout.strip()
    print("ci/build-static-deps %s: %.0f s" % (TRIPLET, time.time() - t))
    env = dict(PKG_CONFIG_PATH="",
               PKG_CONFIG_LIBDIR="%s/lib/pkgconfig:%s/lib/pkgconfig" % (prefix, MINGW_ROOT))
    flags = lotest.run(["pkg-config", "--static", "--cflags", "--libs",
                        "libgit2", "jansson", "nettle"], env=env).stdout.split()
    lotest.run([TRIPLET + "-gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-static",
                "-o", str(out), str(Path(__file__).with_name("gitprobe.c")), *flags])


def test_probe_reads_a_repository_on_a_drive_letter_path():
    d = lotest.workdir("gitprobe")
    exe = d / "gitprobe.exe"
    build_probe(exe)

    # Only Windows's own DLLs: each import is one Wine's system32 provides.
    imports = [line.split()[-1] for line in
               lotest.run([TRIPLET + "-objdump", "-p", str(exe)]).stdout.splitlines()
               if "DLL Name:" in line]
    assert "KERNEL32.dll" in imports, imports
    env = wine_env()
    lotest.run(["wine", "cmd", "/c", "exit"], env=env, timeout=300)  # the prefix, once
    system32 = {p.name.lower() for p in
                (Path(env["WINEPREFIX"]) / "drive_c" / "windows" / "system32").iterdir()}
    assert all(name.lower() in system32 for name in imports), imports

    repo = d / "Some Repo"
    repo.mkdir()
    lotest.git(repo, "init", "-q")
    (repo / "a.txt").write_text("one\n")
    lotest.git(repo, "add", "a.txt")
    lotest.git(repo, "commit", "-q", "-m", "first")
    (repo / "a.txt").write_text("two\n")
    lotest.git(repo, "commit", "-q", "-am", "second")

    r = lotest.run(["wine", str(exe), windows_path(repo)], env=env, timeout=300, check=False)
    assert r.returncode == 0, r
    out = json.loads(r.stdout)
    assert out["head"] == "refs/heads/main", out
    assert out["oid"] == lotest.git(repo, "rev-parse", "HEAD").strip(), out
    commit = lotest.run(["git", "-C", str(repo), "cat-file", "commit", "HEAD"]).stdout
    assert out["sha256"] == hashlib.sha256(commit.encode()).hexdigest(), out

    # and a path that is not a repository is the library's error, not a crash
    r = lotest.run(["wine", str(exe), windows_path(d / "nowhere")], env=env, timeout=300,
                   check=False)
    assert r.returncode == 1 and "gitprobe: Z:" in r.stderr, r


if __name__ == "__main__":
    lotest.main(globals())
