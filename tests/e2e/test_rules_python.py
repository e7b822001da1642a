"""python.rules and pybind11-nanobind.rules on a real CMake Python package.

fixtures/rules-nanobind builds nanobind's NB_SHARED layout: libnanobind.so
uses the Python C API without linking libpython, and the _ext module links
it. python.rules judges the module from the interpreter in CMakeCache.txt
(here a venv-like link to it, so the path shows where it came from), a later
layer can name another one, and --python wins over rules.
pybind11-nanobind.rules judges libnanobind.so from that interpreter too:
without it, it is judged from a C program and is broken, as dlopen from a C
program says; with it, it loads, as it does in the interpreter.
"""
import os
import shutil

import lotest

SOABI = lotest.run([lotest.PYTHON, "-c",
                    "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.strip()
MODULE = "_ext" + SOABI
RUNTIME = "libnanobind.so"


def build(name):
    d = lotest.workdir(name)
    venv = d / "venv" / "bin"
    venv.mkdir(parents=True)
    python = venv / "python3"
    os.symlink(os.path.realpath(lotest.PYTHON), python)
    lotest.cmake_build(lotest.FIXTURES / "rules-nanobind", d / "build",
                       defines={"Python3_EXECUTABLE": python})
    # the package imports in the interpreter it was built for
    p = lotest.run([python, "-c", "import _ext; print(_ext.answer)"], cwd=d / "build")
    assert p.stdout.strip() == "42", p
    return d, d / "build", python


def scan(*args, env=None):
    e = {"XDG_CONFIG_HOME": str(lotest.WORK / "no-user-rules")}
    e.update(env or {})
    return lotest.Scan(lotest.run([lotest.LEFTOVER, "scan", "--format", "json"] + [str(a) for a in args],
                                  env=e, check=False))


def rules_without(d, name):
    out = d / ("rules-without-" + name)
    out.mkdir()
    for f in (lotest.SOURCE_DIR / "rules").glob("*.rules"):
        if f.name != name:
            shutil.copy(f, out)
    return out


def test_module_host_is_the_cmake_interpreter_and_layers_override_it():
    d, b, python = build("rules-python")
    r = scan(b)
    assert r.rc == 0, r
    assert r.file(MODULE)["host"] == str(python), r.file(MODULE)
    assert r.file(MODULE)["verdict"] == "ok", r.file(MODULE)

    # a later layer names another interpreter for the same files
    other = d / "other" / "python3"
    other.parent.mkdir()
    os.symlink(os.path.realpath(lotest.PYTHON), other)
    (b / ".leftover").mkdir(exist_ok=True)
    (b / ".leftover" / "rules").write_text("[host \"python\"]\n\tprogram = %s\n" % other)
    r = scan(b)
    assert r.file(MODULE)["host"] == str(other), r.file(MODULE)
    # --python wins over every rule
    r = scan("--python", lotest.PYTHON, b)
    assert r.file(MODULE)["host"] == lotest.PYTHON, r.file(MODULE)


def test_nanobind_runtime_is_judged_from_the_interpreter():
    d, b, python = build("rules-nanobind")
    runtime = b / RUNTIME
    r = scan(b, env={"LEFTOVER_RULES_DIR": str(rules_without(d, "pybind11-nanobind.rules"))})
    assert r.rc == 1, r
    f = r.file(RUNTIME)
    assert f["verdict"] == "broken", f
    assert "PyLong_FromLong" in {x["symbol"] for x in r.reasons(RUNTIME, "undefined-symbol")}, f
    [plain] = lotest.dlopen([runtime])
    assert plain.startswith("error") and "PyLong_FromLong" in plain, plain

    r = scan(b)
    assert r.rc == 0, r
    f = r.file(RUNTIME)
    assert f["verdict"] == "ok" and f["host"] == str(python), f
    [in_python] = lotest.dlopen([runtime], python=str(python))
    assert in_python == "ok", in_python


if __name__ == "__main__":
    lotest.main(globals())
