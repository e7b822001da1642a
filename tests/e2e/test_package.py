"""The Debian package as Debian and a user read it (issue 15).

leftover is configured and built afresh (tests off, the default prefix) and
`cpack -G DEB` makes the .deb. It must install under /usr only (policy keeps
packages out of /usr/local) with real metadata and dependencies, and lintian
must find no error in it; a copy moved to /usr/local and stripped of its
copyright file shows that lintian would say so. Unpacked with dpkg-deb -x
into a scratch root, the program runs (--version; the rules it reads are the
packaged ones, found beside it) and find_package(Leftover) from a CMake
project finds that program and adds its audit.
"""
import re
import shutil
from pathlib import Path

import lotest

CPACK = Path(lotest.CMAKE).with_name("cpack")


def build_deb(d):
    build = d / "build"
    lotest.run([lotest.CMAKE, "-S", lotest.SOURCE_DIR, "-B", build, "-G", "Ninja",
                "-DLEFTOVER_TESTS=OFF"])
    lotest.run([lotest.CMAKE, "--build", build, "-j2"], timeout=1200)
    lotest.run([CPACK, "-G", "DEB"], cwd=build, timeout=600)
    debs = list(build.glob("leftover_*.deb"))
    assert len(debs) == 1, debs
    return debs[0]


def lintian_errors(lintian, deb):
    r = lotest.run([lintian, deb], check=False, timeout=600)
    return [l for l in r.stdout.splitlines() if l.startswith("E: ")]


def test_deb():
    d = lotest.workdir("package")
    deb = build_deb(d)
    fields = {k: lotest.run(["dpkg-deb", "-f", deb, k]).stdout.strip()
              for k in ("Package", "Version", "Maintainer", "Depends", "Homepage", "Section")}
    version = lotest.leftover("--version").stdout.split()[1]
    assert fields["Package"] == "leftover" and fields["Version"] == version, fields
    assert re.fullmatch(r"[^<>]+ <[^@<>]+@[^@<>]+>", fields["Maintainer"]), fields
    for lib in ("libgit2", "libjansson4", "libc6"):
        assert lib in fields["Depends"], fields
    assert "libelf" not in fields["Depends"], fields  # ELF is read by leftover's own reader
    assert fields["Homepage"].startswith("https://"), fields
    files = [l.split()[-1] for l in lotest.run(["dpkg-deb", "-c", deb]).stdout.splitlines()]
    assert files and all(f.startswith("./usr/") and not f.startswith("./usr/local")
                         for f in files), files
    assert "./usr/bin/leftover" in files and "./usr/share/doc/leftover/copyright" in files, files

    lintian = lotest.need("lintian", "lintian")
    errors = lintian_errors(lintian, deb)
    assert not errors, errors
    # lintian is no rubber stamp: the old layout, under /usr/local and without
    # a copyright file, has errors
    raw = d / "control-raw"
    lotest.run(["dpkg-deb", "-R", deb, raw])
    (raw / "usr" / "share" / "doc" / "leftover" / "copyright").unlink()
    (raw / "local").mkdir()
    shutil.move(str(raw / "usr"), str(raw / "local" / "usr"))
    (raw / "usr").mkdir()
    shutil.move(str(raw / "local" / "usr"), str(raw / "usr" / "local"))
    (raw / "local").rmdir()
    lotest.run(["sh", "-c", "cd %s && find usr -type f -exec md5sum {} + > DEBIAN/md5sums" % raw])
    lotest.run(["dpkg-deb", "--root-owner-group", "-b", raw, d / "control.deb"])
    assert lintian_errors(lintian, d / "control.deb")

    root = d / "root"
    lotest.run(["dpkg-deb", "-x", deb, root])
    exe = root / "usr" / "bin" / "leftover"
    r = lotest.run([exe, "--version"])
    assert r.stdout.strip() == "leftover " + version, r
    # the rules it reads are the packaged ones, beside it, not the source tree's
    r = lotest.run([exe, "rules", "--show-origin"])
    origins = {l.split("\t")[0].rsplit(":", 1)[0] for l in r.stdout.splitlines()}
    packaged = str(root / "usr" / "share" / "leftover" / "rules")
    assert origins and all(o.startswith(packaged) for o in origins), origins

    proj = d / "proj"
    proj.mkdir()
    (proj / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(uses_leftover NONE)\nenable_testing()\n"
        "find_package(Leftover REQUIRED)\n"
        'message(STATUS "leftover: ${LEFTOVER_EXECUTABLE} ${Leftover_VERSION}")\n'
        "leftover_add_audit(audit)\n")
    r = lotest.run([lotest.CMAKE, "-S", proj, "-B", proj / "build",
                    "-DCMAKE_PREFIX_PATH=%s" % (root / "usr")])
    assert "leftover: %s %s" % (exe, version) in r.stdout, r.stdout
    r = lotest.run([Path(lotest.CMAKE).with_name("ctest"), "-R", "audit", "--output-on-failure"],
                   cwd=proj / "build", check=False)
    assert r.returncode == 0 and "100% tests passed" in r.stdout, r.stdout + r.stderr


if __name__ == "__main__":
    lotest.main(globals())
