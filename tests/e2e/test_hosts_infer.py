"""Plugins of programs no rule names: the host inferred from what it exports.

zsh's modules take handlefeatures() and the rest from /usr/bin/zsh (and from
zle.so or complete.so, which zsh loads first); Wine's Unix libraries need
ntdll.so, which lies beside them and which Wine's loader maps first; a
project's plugins take the API its own executable exports (CMake's
ENABLE_EXPORTS). From a plain C program all of them are broken; leftover
finds the program by what the object lacks (hosts.h, lo_hosts_infer) and
judges it from there, naming that host. Truth: the program itself loading
each file (zmodload; Wine's loader with what leftover says it loaded first;
the project's program dlopen()ing each plugin). x32, a target of its own
(Debian's libc6-x32), is judged by its own loader's rules.
"""
import glob
import os
import re
import shutil
import subprocess

import lotest

def test_zsh_modules_are_judged_from_zsh():
    zsh = os.path.realpath(lotest.need("zsh", "zsh"))
    top = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/zsh/*/"))[-1].rstrip("/")
    r = lotest.scan(top)
    files = {p: f for p, f in r.files.items() if f["verdict"] != "skipped"}
    assert len(files) >= 30, r
    inferred = 0
    for rel, f in sorted(files.items()):
        module = rel[:-len(".so")]
        first = [os.path.dirname(module) + "/" + os.path.basename(p)[:-len(".so")]
                 for p in lotest.inferred_first(rel, f)]
        script = "".join("zmodload %s; " % m for m in first) + "zmodload " + module
        truth = lotest.run([zsh, "-fc", script], check=False)
        assert f["loads"] is (truth.returncode == 0), (rel, f, truth.stderr)
        if f["host_inferred"]:
            inferred += 1
            assert os.path.realpath(f["host"]) == zsh and f["host_rule"] is None, f
    # what zsh alone cannot load (zsh/zftp needs zsh/net/tcp's functions) stays broken
    assert inferred >= len(files) - 3, files
    print("zsh: %d modules agree with zmodload, %d judged from zsh" % (len(files), inferred))
    # explain says the same of one, from the same host
    e = lotest.leftover("explain", os.path.join(top, "zsh/complist.so"))
    assert e.returncode == 0 and "host inferred from what it lacks: '/usr/bin/zsh'" in e.stdout \
        and "having loaded first zle.so, complete.so" in e.stdout, e.stdout

    # --host overrides the inference, and so does a rule that pins the host
    dash = os.path.realpath(lotest.need("dash", "dash"))
    rules = lotest.workdir("infer-zsh-rules") / "pin.rules"
    rules.write_text('[host "pinned"]\n\tmatch = **/zsh/attr.so\n\tprogram = %s\n' % dash)
    for args, rule in ((["--host", dash], None), (["--rules", rules], "pinned")):
        f = lotest.scan(top, args=args).file("zsh/attr.so")
        assert f["verdict"] == "broken" and f["host"] == dash and f["host_rule"] == rule and \
            f["host_inferred"] is None, (args, f)

    # a module zsh does not provide for: broken as from a plain program, the
    # candidates tried listed under --verbose
    tree = lotest.workdir("infer-zsh-other") / "zsh"
    lotest.cc(tree / "other.so", "extern int handlefeatures(); extern int no_such_in_zsh();\n"
              "int f(void) { return handlefeatures() + no_such_in_zsh(); }\n")
    r = lotest.scan(tree)
    f = r.file("other.so")
    assert f["verdict"] == "broken" and f["host"] is None and f["host_inferred"] is None, f
    t = lotest.leftover("scan", "--verbose", tree)
    assert "no program found provides what it lacks" in t.stdout and \
        "(lacks no_such_in_zsh)" in t.stdout, t.stdout


def test_wine_unix_libraries_are_judged_from_wine():
    loader = lotest.need("/usr/lib/wine/wine64", "wine64")
    unix = "/usr/lib/x86_64-linux-gnu/wine/x86_64-unix"
    r = lotest.scan(unix)
    lotest.assert_warm_as_cold(unix)  # an inferred host as a warm scan keeps it
    files = {p: f for p, f in r.files.items() if f["verdict"] != "skipped"}
    rels = sorted(files)
    truth = lotest.load_inside(loader, [os.path.join(unix, p) for p in rels],
                               first=[lotest.inferred_first(os.path.join(unix, p), files[p])
                                      for p in rels])
    wrong = [(p, files[p]["verdict"], t) for p, t in zip(rels, truth)
             if files[p]["loads"] is not (t == "ok")]
    assert not wrong, wrong
    inferred = [p for p in rels if files[p]["host_inferred"]]
    assert len(inferred) >= 20 and all(files[p]["host"] == loader and
                                       os.path.join(unix, "ntdll.so") in
                                       lotest.inferred_first(os.path.join(unix, p), files[p])
                                       for p in inferred), files
    print("wine: %d libraries agree with its loader, %d judged from it" % (len(rels),
                                                                          len(inferred)))


APP = r"""#include <dlfcn.h>
#include <stdio.h>
int api_common(void) { return 1; }
int api_util(void) { return 2; }
%s
/* the program loads each plugin named on its command line, as it would its own */
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    printf("%%s\n", h ? "ok" : dlerror());
  }
  return 0;
}
"""

CMAKE = """cmake_minimum_required(VERSION 3.20)
project(app C)
add_executable(app app.c)
set_target_properties(app PROPERTIES ENABLE_EXPORTS ON)
target_link_libraries(app PRIVATE ${CMAKE_DL_LIBS})
foreach(p %s)
  add_library(${p} MODULE ${p}.c)
  set_target_properties(${p} PROPERTIES PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/plugins)
  # linked to the program whose API it uses: the build's records say who loads it
  target_link_libraries(${p} PRIVATE app)
endforeach()
"""


def plugin(name, *calls):
    return "".join("extern int %s(void);\n" % c for c in calls) + \
        "int %s_run(void) { return %s; }\n" % (name, " + ".join(c + "()" for c in calls))


def test_cmake_plugins_of_the_tree_own_program_across_branches():
    d = lotest.workdir("infer-cmake")
    src, build = d / "src", d / "build"
    src.mkdir()
    (src / "app.c").write_text(APP % "int api_v1(void) { return 3; }")
    (src / "CMakeLists.txt").write_text(CMAKE % "plug_a plug_old plug_keep")
    (src / "plug_a.c").write_text(plugin("plug_a", "api_common"))
    (src / "plug_old.c").write_text(plugin("plug_old", "api_common", "api_util", "api_v1"))
    (src / "plug_keep.c").write_text(plugin("plug_keep", "api_common", "api_util", "api_v1"))
    lotest.git(src, "init", "-q")
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-q", "-m", "app with API v1 and its plugins")
    lotest.git(src, "checkout", "-q", "-b", "v2")
    (src / "app.c").write_text(APP % "int api_v2(void) { return 4; }")
    (src / "CMakeLists.txt").write_text(CMAKE % "plug_a plug_b plug_keep")
    (src / "plug_b.c").write_text(plugin("plug_b", "api_common", "api_v2"))
    lotest.git(src, "rm", "-q", "plug_old.c")
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-q", "-m", "API v2: api_v1 dropped, plug_old gone")
    lotest.git(src, "checkout", "-q", "main")

    lotest.cmake_build(src, build)
    r = lotest.scan(build)
    assert r.rc == 0, r
    for rel in ("plugins/plug_a.so", "plugins/plug_old.so", "plugins/plug_keep.so"):
        f = r.file(rel)
        assert f["verdict"] == "ok" and f["host"] == str(build / "app") and \
            "an executable of the build tree" in f["host_inferred"], f

    lotest.git(src, "checkout", "-q", "v2")
    lotest.cmake_build(src, build)
    rels = ["plugins/plug_a.so", "plugins/plug_b.so", "plugins/plug_old.so",
            "plugins/plug_keep.so"]
    truth = lotest.run([build / "app"] + [build / p for p in rels]).stdout.splitlines()
    assert truth[:2] == ["ok", "ok"] and all("undefined symbol: api_v1" in t
                                             for t in truth[2:]), truth
    r = lotest.scan(build)
    assert r.rc == 1, r
    want = {"plugins/plug_a.so": "ok", "plugins/plug_b.so": "ok",
            "plugins/plug_old.so": "stale", "plugins/plug_keep.so": "broken"}
    for rel, answer in zip(rels, truth):
        f = r.file(rel)
        assert f["verdict"] == want[rel] and f["loads"] is (answer == "ok"), (rel, f, answer)
        assert f["host"] == str(build / "app") and f["host_inferred"], f
        # the live ones by the File API's record of their target, the stale one by
        # the tree's program alone, its target gone from the records
        assert ("an executable of the build tree" if rel.endswith("old.so") else
                "the program its target links to in the build's records") in \
            f["host_inferred"], f
        if answer != "ok":
            # judged from the program: only what it lacks is a finding
            assert {x["symbol"] for x in r.reasons(rel, "undefined-symbol")} == {"api_v1"}, f
    t = lotest.leftover("scan", build)
    assert "plug_old.so" in t.stdout and "api_v1" in t.stdout and \
        "  host inferred from what it lacks: '%s'" % (build / "app") in t.stdout, t.stdout
    lotest.assert_stale_not_rebuilt(r, build, [lotest.CMAKE, "--build", build])


def x32_runs():
    """Does this kernel run x32 programs (CONFIG_X86_X32_ABI, often off)?"""
    d = lotest.workdir("infer-x32-probe")
    exe = lotest.cc(d / "hello", "int main(void) { return 0; }\n", "-mx32", shared=False)
    try:
        return subprocess.run([str(exe)], capture_output=True, timeout=30).returncode == 0
    except OSError:
        return False


def test_x32_objects_are_judged_by_their_loader():
    lotest.need("/usr/libx32/libc.so.6", "libc6-x32")
    lotest.need("/usr/libx32/crt1.o", "libc6-dev-x32")
    # gcc's x32 parts alone: gcc-multilib, which would bring them, conflicts with the
    # cross compilers other tests install
    gcc = lotest.run(["gcc", "-dumpversion"]).stdout.strip().split(".")[0]
    lotest.need("/usr/lib/gcc/x86_64-linux-gnu/%s/x32/crtbeginS.o" % gcc, "libx32gcc-%s-dev" % gcc)
    r = lotest.scan("/usr/libx32")
    elf = {p: f for p, f in r.files.items() if f["verdict"] != "skipped"}
    assert len(elf) >= 20 and all(f["arch"] == "x86_64-linux-gnux32" and f["verdict"] == "ok"
                                  for f in elf.values()), r
    # two of a project's own: one whose needs the x32 libraries meet, one they do not
    d = lotest.workdir("infer-x32")
    lotest.cc(d / "libgood.so", "#include <math.h>\ndouble f(double x) { return sin(x); }\n",
              "-mx32", "-lm")
    lotest.cc(d / "libbad.so", "extern int no_such_x32(void);\nint g(void) { return no_such_x32(); }\n",
              "-mx32")
    # libz.so.1 by name, from a stub: the machine has it for x86-64 only
    lotest.cc(d / "stub" / "libz.so", "int zlibVersion(void) { return 0; }\n", "-mx32",
              "-Wl,-soname,libz.so.1")
    lotest.cc(d / "libneeds.so", "int h(void) { return 0; }\n", "-mx32", "-L", d / "stub",
              "-Wl,--no-as-needed", "-lz")
    shutil.rmtree(d / "stub")
    r = lotest.scan(d)
    good, bad = r.file("libgood.so"), r.file("libbad.so")
    assert good["verdict"] == "ok" and good["arch"] == "x86_64-linux-gnux32", good
    assert bad["verdict"] == "broken" and \
        {x["symbol"] for x in r.reasons("libbad.so", "undefined-symbol")} == {"no_such_x32"}, bad
    # libz.so.1 exists for x86-64, not in /usr/libx32: x32's loader does not take it
    needs = r.reasons("libneeds.so", "missing-library")
    assert "libz.so.1" in {x["library"] for x in needs}, r.file("libneeds.so")
    if x32_runs():
        probe = lotest.cc(d / "probe", "#include <dlfcn.h>\n#include <stdio.h>\n"
                          "int main(int c, char **v) { for (int i = 1; i < c; i++) "
                          "puts(dlopen(v[i], RTLD_NOW) ? \"ok\" : dlerror()); return 0; }\n",
                          "-mx32", "-ldl", shared=False)
        rels = ["libgood.so", "libbad.so", "libneeds.so"]
        truth = lotest.run([probe] + [d / p for p in rels]).stdout.splitlines()
        assert [t == "ok" for t in truth] == [r.file(p)["loads"] for p in rels], truth
    else:
        # reading only: each library the corpus needs is in x32's own directories,
        # or beside it where its RUNPATH says $ORIGIN (glibc's gconv modules)
        for rel in elf:
            dyn = lotest.run(["readelf", "-d", "/usr/libx32/" + rel]).stdout
            here = os.path.dirname("/usr/libx32/" + rel) if "[$ORIGIN]" in dyn else "/usr/libx32"
            for lib in re.findall(r"\(NEEDED\).*\[(.*)\]", dyn):
                assert os.path.exists("/usr/libx32/" + lib) or \
                    os.path.exists(os.path.join(here, lib)), (rel, lib)
        print("x32: this kernel runs no x32 program; %d objects judged by reading" % len(elf))


if __name__ == "__main__":
    lotest.main(globals())
