"""perl's XS extensions under the default rules (rules/perl.rules).

Perl XS extensions (auto/POSIX/POSIX.so) leave every Perl_*/PL_* symbol
undefined: perl provides them when DynaLoader loads the extension, and
dlopen from a plain C program fails on them. leftover knows them by what
they need, wherever they are, and judges them from perl: the perl on PATH,
or the one the build tree's CMake found. Truth: perl itself loading each
one with DynaLoader and PERL_DL_NONLAZY=1 (RTLD_NOW), in a child.
"""
import glob
import os
import re
import shutil

import lotest

AUTO_DIRS = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/perl5/*/auto") +
                   glob.glob("/usr/lib/x86_64-linux-gnu/perl/5.*/auto"))
PERL_PREFIXES = ("Perl_", "PL_", "PerlIO", "perl_")


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


def test_perl_extensions_are_judged_from_perl():
    assert AUTO_DIRS, "no perl extension directory on this system"
    perl = shutil.which("perl")
    work = lotest.workdir("rules-perl")
    tree = work / "tree"
    rels = copy_extensions(tree)
    assert len(rels) >= 3, rels

    # what makes them perl's: from a C program they do not load
    plain = lotest.dlopen([tree / p for p in rels])
    assert all(a.startswith("error") and "undefined symbol" in a for a in plain), plain
    assert any(re.search(r"undefined symbol: (Perl_|PL_)", a) for a in plain), plain

    r = scan(tree)
    truth = lotest.host_load(perl, [tree / p for p in rels])
    for rel, answer in zip(rels, truth):
        f = r.file(rel)
        assert f["host"] == perl, f
        assert f["loads"] is (answer == "ok"), (rel, f, answer)
    assert set(truth) == {"ok"}, truth
    assert r.rc == 0, r
    # explain picks the host the scan picks
    p = lotest.leftover("explain", tree / rels[0])
    assert p.returncode == 0 and ("host: %s" % perl) in p.stdout, p

    # a real symbol missing besides perl's is still a finding, named as perl names it
    bad = tree / "lib" / "Bad.so"
    lotest.cc(bad, "extern void Perl_croak(const char *, ...); extern int not_in_perl(void);\n"
                   "int boot_Bad(void) { Perl_croak(\"x\"); return not_in_perl(); }\n")
    r = scan(tree)
    assert r.rc == 1, r
    f = r.file("lib/Bad.so")
    assert f["host"] == perl and f["verdict"] == "broken", f
    assert {x["symbol"] for x in r.reasons("lib/Bad.so", "undefined-symbol")} == {"not_in_perl"}, f
    [answer] = lotest.host_load(perl, [bad])
    assert "undefined symbol: not_in_perl" in answer, answer


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
    r = scan(build)
    assert r.rc == 0, r
    for rel in rels:
        f = r.file("lib/" + rel)
        assert f["host"] == perl and f["verdict"] == "ok", f


if __name__ == "__main__":
    lotest.main(globals())
