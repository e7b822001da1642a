"""leftover_add_audit(audit ALL ...): the audit at the end of every build.

The two-branch fixture wrapped in a project that calls
leftover_add_audit(audit ALL CLEAN) before its targets exist, with a
library in a directory added after the call, one left out of `all` and a
custom target without ALL.
For each generator: building only the audit target builds every target of
`all` first (the late one too, the excluded one not); a build on branch-a
prints nothing from leftover; after the switch to branch-b, the plain
`cmake --build` output ends with the audit naming the stale module and the
quarantine it went to, and the package imports again; the next build is
quiet again. Without CLEAN the build lists what it would move and passes,
unless FAIL_ON says otherwise.
"""
import lotest
from test_twobranch import SOABI, import_package

MODULE = "_mlirRegisterEverything" + SOABI

WRAPPER = """cmake_minimum_required(VERSION 3.19)
project(wrapped LANGUAGES C)
include({source_dir}/cmake/LeftoverConfig.cmake)
# before any target: the audit still comes after all of them
leftover_add_audit(audit ALL {options})
add_subdirectory({src} fixture)
add_subdirectory(late)
add_library(excluded SHARED late/late.c)
set_target_properties(excluded PROPERTIES EXCLUDE_FROM_ALL ON)
# a custom target without ALL is not part of the default build either
add_custom_target(docs COMMAND ${{CMAKE_COMMAND}} -E touch ${{CMAKE_BINARY_DIR}}/docs-ran)
# Multi-config generators put each configuration in a subdirectory of an
# output directory; the package needs its modules next to __init__.py.
foreach(t MLIRCAPI _mlir _mlirRegisterEverything)
  if(TARGET ${{t}})
    get_target_property(d ${{t}} LIBRARY_OUTPUT_DIRECTORY)
    set_target_properties(${{t}} PROPERTIES LIBRARY_OUTPUT_DIRECTORY_DEBUG ${{d}})
  endif()
endforeach()
"""

# What leftover itself would print; the generator's own line for the step
# ("audit: checking for stale files", "Built target audit") is not leftover's.
LEFTOVER_WORDS = ("moved", "quarantine", "would move", "nothing to clean", "leftover restore",
                  "stale (", "broken (", "error")


def wrapped(name, generator, options):
    d = lotest.workdir(name)
    src, wrap, build = d / "src", d / "wrap", d / "build"
    lotest.run(["sh", lotest.FIXTURES / "twobranch" / "make-repo.sh", src])
    (wrap / "late").mkdir(parents=True)
    (wrap / "late" / "late.c").write_text("int late(void) { return 1; }\n")
    (wrap / "late" / "CMakeLists.txt").write_text("add_library(late SHARED late.c)\n")
    (wrap / "CMakeLists.txt").write_text(WRAPPER.format(
        src=src, source_dir=lotest.SOURCE_DIR, options=options))
    lotest.run([lotest.CMAKE, "-S", wrap, "-B", build, "-G", generator,
                "-DPython3_EXECUTABLE=" + lotest.PYTHON, "-DLEFTOVER_EXECUTABLE=" + lotest.LEFTOVER])
    return src, build


def build_all(build, check=True):
    return lotest.run([lotest.CMAKE, "--build", build, "-j2"], check=check)


def quiet(out):
    said = [l for l in out.splitlines() if any(w in l for w in LEFTOVER_WORDS)]
    return not said


def audit_at_the_end(generator):
    src, build = wrapped("cmake-all-" + generator.replace(" ", "-"), generator, "CLEAN")
    # the audit depends on every target of `all`, wherever and whenever added
    lotest.run([lotest.CMAKE, "--build", build, "-j2", "--target", "audit"])
    assert list(build.rglob("liblate.so")), "the audit did not wait for the late target"
    assert list(build.rglob(MODULE)), "the audit did not wait for the fixture's modules"
    assert not list(build.rglob("libexcluded.so")), "the audit pulled in an EXCLUDE_FROM_ALL target"
    assert not (build / "docs-ran").exists(), "the audit pulled in a custom target without ALL"

    first = build_all(build)
    assert quiet(first.stdout + first.stderr), first.stdout + first.stderr
    assert import_package(build).returncode == 0

    lotest.git(src, "checkout", "-q", "branch-b")
    p = build_all(build)
    out = p.stdout
    lines = out.splitlines()
    moved = [i for i, l in enumerate(lines) if l.startswith("moved ") and MODULE in l]
    assert len(moved) == 1, out
    assert any("quarantine" in l for l in lines[moved[0]:]), out
    # after everything else the build did
    built = [i for i, l in enumerate(lines) if "Linking" in l or "Built target" in l and "audit" not in l]
    assert built and max(built) < moved[0], out
    assert not list(build.rglob(MODULE)) or all(".leftover" in str(m) for m in build.rglob(MODULE))
    imp = import_package(build)
    assert imp.returncode == 0, imp.stderr

    again = build_all(build)
    assert quiet(again.stdout + again.stderr), again.stdout


def test_ninja():
    audit_at_the_end("Ninja")


def test_ninja_multi_config():
    audit_at_the_end("Ninja Multi-Config")


def test_unix_makefiles():
    audit_at_the_end("Unix Makefiles")


def test_without_clean_the_build_lists_and_passes_unless_fail_on_says():
    src, build = wrapped("cmake-all-dry", "Ninja", "")
    build_all(build)
    lotest.git(src, "checkout", "-q", "branch-b")
    p = build_all(build)
    assert "would move " in p.stdout and MODULE in p.stdout, p.stdout
    assert import_package(build).returncode != 0  # nothing moved

    src, build = wrapped("cmake-all-fail", "Ninja", "FAIL_ON stale")
    build_all(build)
    lotest.git(src, "checkout", "-q", "branch-b")
    p = build_all(build, check=False)
    assert p.returncode != 0, p.stdout
    assert "would move " in p.stdout and MODULE in p.stdout, p.stdout


if __name__ == "__main__":
    lotest.main(globals())
