"""What CPython checks besides the load, held against CPython's own import.

`import m` takes the file m<suffix> for the interpreter's EXTENSION_SUFFIXES
only, and after loading it calls PyInit_m. A module built for another
CPython (a .cpython-312 name next to 3.11, an i386 name next to x86-64) is
never imported: not a load failure, skipped with the reason. One that loads
but exports the wrong PyInit_ fails the import with CPython's message:
broken, with that message.
"""
import lotest

INFO = lotest.run([lotest.PYTHON, "-c", "import sysconfig, importlib.machinery as m; "
                   "print(sysconfig.get_paths()['include']); "
                   "print(sysconfig.get_config_var('EXT_SUFFIX')); "
                   "print(sysconfig.get_config_var('MULTIARCH'))"]).stdout.split("\n")
INCLUDE, SUFFIX, MULTIARCH = INFO[0], INFO[1], INFO[2]
OTHER_VERSION = SUFFIX.replace("cpython-3", "cpython-39", 1)  # .cpython-3911-...: none has it
OTHER_ARCH = SUFFIX.replace(MULTIARCH, "i386-linux-gnu")


def module(path, init):
    """An extension module at path whose init function is `init`."""
    return lotest.cc(path, "#include <Python.h>\n"
                     "static struct PyModuleDef d = { PyModuleDef_HEAD_INIT, \"x\", 0, -1, 0 };\n"
                     "PyMODINIT_FUNC %s(void) { return PyModule_Create(&d); }\n" % init,
                     "-I" + INCLUDE)


def import_error(tree, name):
    """CPython's answer to `import name` with tree on sys.path: None or the error."""
    p = lotest.run([lotest.PYTHON, "-c", "import %s" % name], cwd=tree, check=False,
                   env={"PYTHONPATH": str(tree)})
    return None if p.returncode == 0 else p.stderr.strip().splitlines()[-1]


def test_suffix_and_init_export_as_cpython_checks_them():
    assert MULTIARCH and MULTIARCH in SUFFIX, INFO
    tree = lotest.workdir("python-import")
    module(tree / ("good" + SUFFIX), "PyInit_good")
    module(tree / "stable.abi3.so", "PyInit_stable")
    module(tree / ("modf" + SUFFIX), "PyInit_modx")
    module(tree / ("newer" + OTHER_VERSION), "PyInit_newer")
    module(tree / ("foreign" + OTHER_ARCH), "PyInit_foreign")

    r = lotest.scan(tree, args=("--python", lotest.PYTHON))
    assert r.rc == 1, r

    for name in ("good", "stable"):
        assert import_error(tree, name) is None
    assert r.file("good" + SUFFIX)["verdict"] == "ok", r.file("good" + SUFFIX)
    assert r.file("stable.abi3.so")["verdict"] == "ok", r.file("stable.abi3.so")

    # loads, but CPython finds no PyInit_modf: its words are leftover's
    err = import_error(tree, "modf")
    f = r.file("modf" + SUFFIX)
    assert f["verdict"] == "broken" and f["loads"] is False, f
    why = r.reasons("modf" + SUFFIX, "no-module-init")
    assert len(why) == 1 and why[0]["symbol"] == "PyInit_modf", f
    assert err and err.endswith(why[0]["detail"]), (err, why)

    # never imported: CPython does not find them at all
    for name, suffix in (("newer", OTHER_VERSION), ("foreign", OTHER_ARCH)):
        err = import_error(tree, name)
        assert err and err.startswith("ModuleNotFoundError"), (name, err)
        f = r.file(name + suffix)
        assert f["verdict"] == "skipped" and f["loads"] is None, f
        why = r.reasons(name + suffix, "other-interpreter")
        assert len(why) == 1 and (name + SUFFIX) in why[0]["detail"], f


def test_multiarch_stdlib_modules_of_other_architectures_are_never_imported():
    """Debian's libpython3.11-stdlib:i386 and :arm64 put their extension
    modules beside the x86-64 ones in lib-dynload. The x86-64 interpreter
    never tries them (their suffix is not its own): skipped, none broken;
    its own modules import, and leftover says they load."""
    for arch in ("i386-linux-gnu", "aarch64-linux-gnu"):
        lotest.need_arch(arch, ["libpython3.11-stdlib"])
    dynload = "/usr/lib/python3.11/lib-dynload"
    r = lotest.scan(dynload, args=["--python", lotest.PYTHON])
    by_arch = {}
    for f in r.doc["files"]:
        arch = next((a for a in ("i386-linux-gnu", "aarch64-linux-gnu", MULTIARCH)
                     if ("-%s.so" % a) in f["path"]), None)
        by_arch.setdefault(arch, []).append(f)
    for arch in ("i386-linux-gnu", "aarch64-linux-gnu"):
        files = by_arch[arch]
        assert len(files) >= 20, (arch, len(files))
        for f in files:
            assert f["verdict"] == "skipped" and f["loads"] is None, f
            assert [x["kind"] for x in f["reasons"]] == ["other-interpreter"], f
    own = by_arch[MULTIARCH]
    truth = [import_error(dynload, f["path"].split(".")[0]) is None for f in own]
    assert sum(truth) >= 20, truth
    disagree = [(f, t) for f, t in zip(own, truth) if (f["verdict"] == "ok") != t]
    assert not disagree, disagree
    print("lib-dynload: %d own modules ok, %d i386 and %d arm64 skipped"
          % (len(own), len(by_arch["i386-linux-gnu"]), len(by_arch["aarch64-linux-gnu"])))


if __name__ == "__main__":
    lotest.main(globals())
