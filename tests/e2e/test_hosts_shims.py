"""Interpreters as developers' machines have them: shims, symlinks, venvs.

pyenv, asdf and mise put a shell-script shim first on PATH as `python3`;
CMake's FindPython3 runs it and records it as Python3_EXECUTABLE. leftover
must judge the tree against the program the shim runs, with the same
verdicts as when it is told the real interpreter, and say that it asked.
A host that hangs, babbles or answers with another script is named, in
bounded time, and costs only the files it would load: they are
`unjudged`, never acted on, and the rest of the tree is judged. Truth: the
real interpreter importing the package.
"""
import os
import shutil

import lotest

PKG = "python_packages/mlir/_mlir_libs"
SUFFIX = lotest.run([lotest.PYTHON, "-c",
                     "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.strip()
STALE = PKG + "/_mlirRegisterEverything" + SUFFIX
REAL = lotest.run([lotest.PYTHON, "-c", "import sys; print(sys.executable)"]).stdout.strip()


def pyenv_like(shims):
    """What pyenv's shims do: keep the name they were called by, pick a
    version (here the test's interpreter) and exec that program."""
    return lotest.shim(shims / "python3", 'set -e\nprogram="${0##*/}"\n'
                       'exec "%s/$program" "$@"\n' % os.path.dirname(REAL))


def two_branch_tree(name, python):
    """The fixture built on branch-a then branch-b, configured with `python`."""
    d = lotest.workdir(name)
    src, build = d / "src", d / "build"
    lotest.run(["sh", lotest.FIXTURES / "twobranch" / "make-repo.sh", src])
    lotest.cmake_build(src, build, defines={"Python3_EXECUTABLE": python})
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build, defines={"Python3_EXECUTABLE": python})
    return d, src, build


def extension_module(tree):
    """tree/m<SUFFIX>: an extension module `import m` loads, built for REAL."""
    include = lotest.run([REAL, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"]
                         ).stdout.strip()
    return lotest.cc(tree / ("m" + SUFFIX), "#include <Python.h>\n"
                     "static struct PyModuleDef d = { PyModuleDef_HEAD_INIT, \"m\" };\n"
                     "PyMODINIT_FUNC PyInit_m(void) { return PyModule_Create(&d); }\n",
                     "-I" + include)


def recorded_python(build):
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        if line.startswith("Python3_EXECUTABLE:"):
            return line.split("=", 1)[1]
    raise AssertionError("no Python3_EXECUTABLE in %s" % build)


# The shims of these tests lie under /tmp, which every user may write: a
# tree's record naming one is not run unless the user vouches for the tree
# (test_trust.py holds what happens then).
TRUST = ("--trust-tree",)


def verdicts(r):
    return {p: (f["verdict"], f["loads"], f["orphan"]) for p, f in r.files.items()}


def reconfigure(src, build, python):
    lotest.run([lotest.CMAKE, "-S", src, "-B", build, "-DPython3_EXECUTABLE=%s" % python])
    assert recorded_python(build) == str(python)


def test_shim_symlinked_shim_and_venv_judge_as_the_real_interpreter():
    work = lotest.workdir("hosts-shims")
    shim_py = pyenv_like(work / "shims")
    d, src, build = two_branch_tree("hosts-shims-tree", shim_py)
    assert recorded_python(build) == str(shim_py)

    # the truth: the package fails to import through the shim, on that module
    p = lotest.run([shim_py, "-c", "import mlir._mlir_libs"], check=False,
                   env={"PYTHONPATH": str(build / "python_packages")})
    assert p.returncode != 0 and "undefined symbol: mlirRegisterAllPasses" in p.stderr, p

    told = lotest.scan(build, args=("--python", REAL))
    assert told.rc == 1 and told.file(STALE)["loads"] is False, told
    expected = verdicts(told)

    r = lotest.scan(build, args=TRUST)
    assert r.rc == 1, r
    assert verdicts(r) == expected, (verdicts(r), expected)
    assert r.file(STALE)["host"] == REAL, r.file(STALE)
    said = [n for n in r.doc["notes"] if str(shim_py) in n]
    assert len(said) == 1 and REAL in said[0], r.doc["notes"]

    # a chain of symlinks to the shim, each named python3 as pyenv's would be
    link1 = work / "bin1" / "python3"
    link2 = work / "bin2" / "python3"
    link1.parent.mkdir()
    link2.parent.mkdir()
    link2.symlink_to(shim_py)
    link1.symlink_to(link2)
    reconfigure(src, build, link1)
    r = lotest.scan(build, args=TRUST)
    assert r.rc == 1 and verdicts(r) == expected, r
    assert r.file(STALE)["host"] == REAL, r.file(STALE)

    # a virtualenv's python: a symlink to the ELF program, nothing to ask
    lotest.run([REAL, "-m", "venv", "--without-pip", work / "venv"])
    venv_py = work / "venv" / "bin" / "python"
    reconfigure(src, build, venv_py)
    r = lotest.scan(build, args=TRUST)
    assert r.rc == 1 and verdicts(r) == expected, r
    assert not [n for n in r.doc.get("notes", []) if "asked" in n], r.doc["notes"]


def test_a_shim_on_path_is_followed_for_a_tree_without_cmake():
    work = lotest.workdir("hosts-shim-path")
    shim_py = pyenv_like(work / "shims")
    tree = work / "tree"
    # an extension module outside any CMake tree: python3 on PATH is the host
    extension_module(tree)
    env = {"PATH": "%s:%s" % (shim_py.parent, os.environ["PATH"])}
    r = lotest.scan(tree, env=env)
    assert r.rc == 0, r
    assert r.file("m" + SUFFIX)["host"] == REAL, r.file("m" + SUFFIX)


def test_a_site_hook_that_prints_does_not_change_the_answer():
    """A sitecustomize on PYTHONPATH (or a .pth file in site-packages) runs
    at every start of the interpreter and may print to stdout. leftover's
    question leaves the site module out (-S): the answer is the
    interpreter's, and the module judged as the real import finds it."""
    work = lotest.workdir("hosts-site-hook")
    tree = work / "tree"
    extension_module(tree)
    hook = work / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text("print('sitecustomize says hello')\n")
    env = {"PYTHONPATH": str(hook)}
    # the truth: the interpreter runs the hook, then imports the module
    p = lotest.run([REAL, "-c", "import m"], env={"PYTHONPATH": "%s:%s" % (hook, tree)})
    assert p.stdout == "sitecustomize says hello\n", p
    r = lotest.scan(tree, args=("--python", REAL), env=env)
    assert r.rc == 0, r
    f = r.file("m" + SUFFIX)
    assert f["verdict"] == "ok" and f["host"] == REAL, f
    # its answer was whole: nothing said of the interpreter
    assert not r.doc["notes"], r.doc["notes"]

    # an ELF program that is no Python answers the question with its
    # arguments: it is said so, and not called a shim
    fake = work / "fake" / "python3"
    fake.parent.mkdir()
    shutil.copy("/bin/echo", fake)
    r = lotest.scan(tree, args=("--python", fake))
    said = [n for n in r.doc["notes"] if str(fake) in n]
    assert len(said) == 1 and "not an absolute path" in said[0], r.doc["notes"]
    assert "not an ELF program" not in said[0], said


def test_an_interpreter_no_file_needs_is_not_in_the_report():
    """leftover asks a tree's interpreter ahead, when its walk meets the
    first extension module; when a [host] rule gives every module to another
    program, nothing the interpreter said or failed to say is reported."""
    work = lotest.workdir("hosts-unneeded")
    broken = lotest.shim(work / "shims" / "python3",
                         "echo 'pyenv: version 3.99 is not installed' >&2; exit 1\n")
    tree = work / "tree"
    lotest.cc(tree / ("m" + SUFFIX), "int Frob_go(void);\n"
              "int PyInit_m(void) { return Frob_go(); }\n")
    env = {"PATH": "%s:%s" % (broken.parent, os.environ["PATH"])}
    # the failing interpreter, needed: said once
    needed = lotest.scan(tree, env=env)
    assert [n for n in needed.doc["notes"] if str(broken) in n], needed.doc["notes"]
    # the same tree where a rule's program (a shell: never started, read) takes the module
    (tree / ".leftover").mkdir()
    (tree / ".leftover" / "rules").write_text(
        '[host "frob"]\n\tneeds = Frob_*\n\tprogram = /bin/sh\n\tprovides = Frob_*\n')
    r = lotest.scan(tree, env=env)
    f = r.file("m" + SUFFIX)
    assert f["host"] == os.path.realpath("/bin/sh") or "sh" in f["host"], f
    assert not [n for n in r.doc.get("notes", []) if "3.99" in n or str(broken) in n], \
        r.doc["notes"]


def test_a_host_that_hangs_babbles_or_loops_costs_only_its_files():
    work = lotest.workdir("hosts-bad-shims")
    d, src, build = two_branch_tree("hosts-bad-tree", REAL)
    live = PKG + "/_mlir" + SUFFIX
    good = lotest.scan(build)
    assert good.file(live)["verdict"] == "ok" and good.file(STALE)["verdict"] == "stale", good
    another = lotest.shim(work / "other" / "python3", "echo hello\n")
    cases = {
        "hangs": ("sleep 600\n", "did not say which program it is within"),
        "lingers": ('echo "%s"; exec >&-; sleep 600\n' % REAL, "did not say which program it is within"),
        "babbles": ("echo 'Python 3.11 says hello'\n", "not an absolute path"),
        "loops": ('echo "%s"\n' % another, "not an ELF program"),
        "fails": ("echo 'pyenv: version 3.99 is not installed' >&2; exit 1\n", "exit status 1"),
    }
    for name, (body, says) in cases.items():
        bad = lotest.shim(work / name / "python3", body)
        # (not through CMake: FindPython3 would wait for the hanging one)
        # a hang is cut off by leftover, not by this timeout
        r = lotest.scan("--python", bad, build)
        assert r.rc == 1, (name, r)
        f = r.file(live)
        assert f["verdict"] == "unjudged" and f["loads"] is None, (name, f)
        why = [x["detail"] for x in r.reasons(live, "no-host")]
        assert len(why) == 1 and str(bad) in why[0] and says in why[0], (name, f)
        assert "--python" in why[0], (name, why)
        # the rest of the tree is judged as without the bad host
        assert r.file(STALE)["verdict"] == "stale", (name, r.file(STALE))
        assert r.file(PKG + "/libMLIRCAPI.so") == good.file(PKG + "/libMLIRCAPI.so"), name
        # asked once, said once
        assert len([n for n in r.doc["notes"] if str(bad) in n]) == 1, (name, r.doc["notes"])
        assert r.doc["summary"]["unjudged"] >= 1, (name, r.doc["summary"])

    # never acted on: clean leaves an unjudged module where it is
    bad = work / "hangs" / "python3"
    p = lotest.leftover("clean", "--python", bad, build)
    assert p.returncode == 1, p
    assert (build / live).exists() and not (build / STALE).exists(), p


def asdf_data(work, installs):
    """An asdf data directory as asdf 0.16+ leaves it: the python plugin,
    each version in `installs` (version -> interpreter) installed as
    installs/python/V/bin/python3, and the shim `asdf reshim` writes, its
    plugin lines in the order the versions were installed. No `asdf` is
    on PATH: a shim that were run would fail."""
    data = work / "asdf"
    (data / "plugins" / "python" / "bin").mkdir(parents=True)
    for v, program in installs.items():
        b = data / "installs" / "python" / v / "bin"
        b.mkdir(parents=True)
        (b / "python3").symlink_to(program)
    shim = data / "shims" / "python3"
    shim.parent.mkdir()
    shim.write_text("#!/usr/bin/env bash\n" +
                    "".join("# asdf-plugin: python %s\n" % v for v in installs) +
                    'exec asdf exec "python3" "$@"')
    shim.chmod(0o755)
    return data, shim


def test_an_asdf_shim_is_read_from_asdf_files_not_run():
    """asdf's rules (hosts/shim_asdf.c): ASDF_PYTHON_VERSION, else the
    nearest .tool-versions from the current directory up; of the versions
    selected, those the shim lists in the shim's order; `system` is the
    next python3 on PATH. The interpreter so chosen is the host, and the
    module's verdict is the one that interpreter's own import gives."""
    work = lotest.workdir("hosts-asdf")
    pypy = shutil.which("pypy3") or lotest.need("pypy3", "pypy3")
    other = os.path.realpath(pypy)
    data, shim = asdf_data(work, {"3.11": REAL, "pypy3.9": other})
    tree = work / "project" / "tree"
    module = extension_module(tree).name
    env = {"ASDF_DATA_DIR": str(data), "PATH": "%s:%s" % (shim.parent, os.environ["PATH"])}

    def host(versions_file, extra=None):
        if versions_file is None:
            (work / "project" / ".tool-versions").unlink(missing_ok=True)
        else:
            (work / "project" / ".tool-versions").write_text(versions_file)
        r = lotest.scan(tree, args=("--no-cache",), env=dict(env, **(extra or {})),
                        cwd=work / "project")
        return r, r.file(module)

    # the truth for each interpreter: its own import of the module
    for program, loads in ((REAL, True), (other, False)):
        p = lotest.run([program, "-c", "import m"], env={"PYTHONPATH": str(tree)}, check=False)
        assert (p.returncode == 0) == loads, (program, p)

    r, f = host("# pinned\nnodejs 20.1.0\npython 3.11  # the tree's\n")
    assert r.rc == 0 and f["verdict"] == "ok", r
    assert f["host"] == str(data / "installs/python/3.11/bin/python3"), f
    said = [n for n in r.doc["notes"] if str(shim) in n]
    assert len(said) == 1 and "asdf shim" in said[0] and ".tool-versions" in said[0], said

    r, f = host("python pypy3.9\n")
    assert f["verdict"] == "skipped" and f["host"].endswith("pypy3.9/bin/python3"), f
    assert r.reasons(module, "other-interpreter"), f

    # both selected: the shim's order decides, as `asdf exec` intersects them
    r, f = host("python pypy3.9 3.11\n")
    assert f["verdict"] == "ok" and "/3.11/" in f["host"], f

    # the environment before any file
    r, f = host("python 3.11\n", {"ASDF_PYTHON_VERSION": "pypy3.9"})
    assert f["verdict"] == "skipped" and "ASDF_PYTHON_VERSION" in " ".join(r.doc["notes"]), r

    # system: the next python3 on PATH after asdf's shims
    sysdir = work / "sys"
    sysdir.mkdir()
    (sysdir / "python3").symlink_to(REAL)
    r, f = host("python system\n", {"PATH": "%s:%s:/usr/bin:/bin" % (shim.parent, sysdir)})
    assert f["verdict"] == "ok" and f["host"] == str(sysdir / "python3"), f

    # where asdf would run the plugin's own script to know, leftover does not guess:
    # the shim is left to be asked, and asking it fails (there is no asdf here)
    (data / "plugins" / "python" / "bin" / "exec-path").write_text("#!/bin/sh\necho bin/python3\n")
    r, f = host("python 3.11\n")
    assert f["verdict"] == "unjudged" and f["host"] is None, f
    assert str(shim) in r.reasons(module, "no-host")[0]["detail"], f


if __name__ == "__main__":
    lotest.main(globals())
