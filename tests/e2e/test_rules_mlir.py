"""mlir.rules on the two-branch fixture: the finding carries the reason text.

A build dir reused from branch-a for branch-b keeps _mlirRegisterEverything
(fixtures/twobranch/); mlir.rules says what such a file does to an import
of the package, and that sentence must reach the user with the finding, in
JSON (a reason of kind "rule") and in the text report. Files the rule
matches that load are not given the sentence, and without mlir.rules it is
absent.
"""
import shutil

import lotest

PKG = "python_packages/mlir/_mlir_libs"
SOABI = lotest.run([lotest.PYTHON, "-c",
                    "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.strip()
STALE = PKG + "/_mlirRegisterEverything" + SOABI
REASON = "_mlir_libs/__init__.py imports _mlirRegisterEverything whenever the file exists"
ENV = {"XDG_CONFIG_HOME": str(lotest.WORK / "no-user-rules")}


def scan(*args, env=None):
    e = dict(ENV)
    e.update(env or {})
    return lotest.run([lotest.LEFTOVER, "scan"] + [str(a) for a in args], env=e, check=False)


def test_stale_register_everything_shows_the_reason():
    d = lotest.workdir("rules-mlir")
    src, build = d / "src", d / "build"
    lotest.run(["sh", lotest.FIXTURES / "twobranch" / "make-repo.sh", src])
    lotest.cmake_build(src, build)
    r = lotest.Scan(scan("--format", "json", build))
    assert r.rc == 0, r
    assert not any(x["kind"] == "rule" for f in r.doc["files"] for x in f["reasons"]), r.doc

    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build)
    r = lotest.Scan(scan("--format", "json", build))
    assert r.rc == 1, r
    rule = r.reasons(STALE, "rule")
    assert len(rule) == 1 and rule[0]["detail"].startswith(REASON), r.file(STALE)
    assert r.reasons(STALE, "undefined-symbol"), r.file(STALE)
    # the aggregate library matches a rule too, but it loads: no sentence
    assert r.reasons(PKG + "/libMLIRCAPI.so", "rule") == [], r.file(PKG + "/libMLIRCAPI.so")

    t = scan(build)
    assert t.returncode == 1 and REASON in t.stdout, t.stdout

    no_mlir = d / "rules-without-mlir"
    no_mlir.mkdir()
    for f in (lotest.SOURCE_DIR / "rules").glob("*.rules"):
        if f.name != "mlir.rules":
            shutil.copy(f, no_mlir)
    r = lotest.Scan(scan("--format", "json", build, env={"LEFTOVER_RULES_DIR": str(no_mlir)}))
    assert r.rc == 1 and r.reasons(STALE, "rule") == [], r.file(STALE)


def test_site_initialize_modules_are_candidates():
    d = lotest.workdir("rules-mlir-site")
    libs = d / "build" / PKG
    libs.mkdir(parents=True)
    (libs / "_site_initialize_0.py").write_text("def register_dialects(registry): pass\n")
    (libs / "helper.py").write_text("")
    r = lotest.Scan(scan("--format", "json", d / "build"))
    assert set(r.files) == {PKG + "/_site_initialize_0.py"}, r.files
    assert r.file(PKG + "/_site_initialize_0.py")["verdict"] == "skipped"


if __name__ == "__main__":
    lotest.main(globals())
