"""extra/perl.rules on a copy of the system's perl extensions (issue 5's perl case).

Perl XS extensions (auto/POSIX/POSIX.so) leave every Perl_*/PL_* symbol
undefined: perl provides them when DynaLoader loads the extension. Without
perl.rules leftover judges them from a plain C program and reports them
broken, as dlopen from such a program fails; with it they load, and the
verdict agrees with dlopen from a perl-like host (a C program linked with
libperl). perl.rules is off by default (`--rules perl` turns it on), so a
plain scan still agrees with dlopen from a C program. When the build tree's
CMake found perl, that perl is the host.
"""
import glob
import os
import re
import shutil

import lotest

AUTO_DIRS = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/perl5/*/auto") +
                   glob.glob("/usr/lib/x86_64-linux-gnu/perl/5.*/auto"))


def copy_extensions(dest):
    """dest/auto: the system's perl extension dirs merged; the .so paths, relative."""
    for d in AUTO_DIRS:
        shutil.copytree(d, dest / "auto", symlinks=True, dirs_exist_ok=True)
    return sorted(os.path.relpath(p, dest) for p in glob.glob(str(dest / "auto" / "**" / "*.so"),
                                                              recursive=True))


def scan(tree, args=()):
    env = {"XDG_CONFIG_HOME": str(lotest.WORK / "no-user-rules")}
    return lotest.Scan(lotest.run([lotest.LEFTOVER, "scan", "--format", "json", *args, tree],
                                  env=env, check=False))


PERL_PREFIXES = ("Perl_", "PL_", "PerlIO", "perl_")


def exported_by_perls_libraries():
    """The dynamic symbols that libperl's own libraries (libm, libc, ...) define."""
    libperl = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/libperl.so.5.*"))[0]
    libs = re.findall(r"=> (/\S+)", lotest.run(["ldd", libperl]).stdout)
    assert libs, libperl
    out = set()
    for lib in libs:
        for line in lotest.run(["nm", "-D", "--defined-only", lib]).stdout.splitlines():
            out.add(line.split()[-1].split("@")[0])
    return out


def perl_like_host(work):
    """tests/e2e/probe/dlopen_probe.c linked with libperl: perl's symbols in the global scope."""
    exe = work / "perl_probe"
    libperl = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/libperl.so.5.*"))[0]
    lotest.run(["gcc", "-O1", "-std=c11", "-o", exe, lotest.SOURCE_DIR / "tests/e2e/probe/dlopen_probe.c",
                "-Wl,--no-as-needed", libperl])
    assert "libperl.so" in lotest.run(["readelf", "-d", exe]).stdout
    return exe


def probe(exe, paths):
    """What the real loader answers for each path from `exe` (the dlopen_probe protocol)."""
    p = lotest.run([exe, "10"], input="".join(str(x) + "\0" for x in paths))
    out = [None] * len(paths)
    for line in p.stdout.splitlines():
        i, _, answer = line.partition(" ")
        out[int(i)] = answer
    return out


def test_perl_extensions_without_and_with_perl_rules():
    assert AUTO_DIRS, "no perl extension directory on this system"
    work = lotest.workdir("rules-perl")
    tree = work / "tree"
    rels = copy_extensions(tree)
    assert len(rels) >= 3, rels

    # without perl.rules: the defaults
    in_perl = exported_by_perls_libraries()
    r = scan(tree)
    assert r.rc == 1, r
    plain = lotest.dlopen([tree / p for p in rels])
    for rel, answer in zip(rels, plain):
        f = r.file(rel)
        assert f["verdict"] == "broken" and f["loads"] is False, f
        syms = {x["symbol"] for x in r.reasons(rel, "undefined-symbol")}
        assert answer.startswith("error") and "undefined symbol" in answer, (rel, answer)
        named = re.search(r"undefined symbol: ([^\s,]+)", answer).group(1)
        assert named in syms, (rel, named, syms)
        assert any(s.startswith(PERL_PREFIXES) for s in syms), (rel, syms)
        # the rest is what perl's own libraries put in its global scope
        # (Time::Moment takes pow and fmod from perl's libm)
        assert {s for s in syms if not s.startswith(PERL_PREFIXES)} <= in_perl, (rel, syms)

    # with perl.rules: they load, as from a perl-like host; without CMake's
    # PERL_EXECUTABLE the host is the perl on PATH
    r = scan(tree, args=("--rules", "perl"))
    assert r.rc == 0, r
    perl = probe(perl_like_host(work), [tree / p for p in rels])
    for rel, answer in zip(rels, perl):
        f = r.file(rel)
        assert f["host"] == shutil.which("perl"), f
        assert f["loads"] is (answer == "ok"), (rel, f, answer)
        assert f["verdict"] == ("ok" if answer == "ok" else "broken"), (rel, f, answer)
    assert set(perl) == {"ok"}, perl

    # a real symbol missing besides perl's is still a finding
    bad = tree / "auto" / "Bad" / "Bad.so"
    lotest.cc(bad, "extern void Perl_croak(const char *, ...); extern int not_in_perl(void);\n"
                   "int boot_Bad(void) { Perl_croak(\"x\"); return not_in_perl(); }\n")
    r = scan(tree, args=("--rules", "perl"))
    assert r.rc == 1, r
    assert {x["symbol"] for x in r.reasons("auto/Bad/Bad.so", "undefined-symbol")} == {"not_in_perl"}, \
        r.file("auto/Bad/Bad.so")


def test_perl_found_by_cmake_is_the_host():
    work = lotest.workdir("rules-perl-cmake")
    src, build = work / "src", work / "build"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.16)\nproject(p NONE)\n"
                                        "find_package(Perl REQUIRED)\n")
    lotest.cmake_build(src, build)
    cache = (build / "CMakeCache.txt").read_text()
    perl = [l.split("=", 1)[1] for l in cache.splitlines() if l.startswith("PERL_EXECUTABLE:")][0]
    rels = copy_extensions(build / "lib")
    (build / ".leftover").mkdir(exist_ok=True)
    (build / ".leftover" / "rules").write_text(
        "[include]\n\tpath = %s\n" % (lotest.SOURCE_DIR / "rules" / "extra" / "perl.rules"))
    r = scan(build)
    assert r.rc == 0, r
    for rel in rels:
        f = r.file("lib/" + rel)
        assert f["host"] == perl and f["verdict"] == "ok", f


if __name__ == "__main__":
    lotest.main(globals())
