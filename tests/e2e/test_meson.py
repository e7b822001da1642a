"""meson with Python extension modules, on two branches in one build dir (issue 43).

Branch a builds three modules with py.extension_module: `keep`, `gone` and
`broken` (it needs a symbol nothing defines: it never imports); branch b
drops `gone`. meson's records are read, meson is never run by leftover:
meson-info/ (the current targets), the .ninja_log (what was built), and the
Python that meson configured, from meson's log: not python3 on PATH, which
on a pyenv machine is a shim whose version the user picks.

meson's own regeneration runs `ninja -t cleandead`, so after a full build
on b the dropped module is already gone; it is left behind when the tree
is reconfigured on b (`meson setup --reconfigure`) and not yet built: the
first scan then calls it stale by the Ninja log, and the build, run after
it is removed, does not make it again. Each target's private `<output>.p/`
directory (objects named `x.so.p/x.c.o`, which match `*.so.*`) is meson's
bookkeeping, never listed. Truth for `broken`: the interpreter importing it.
"""
import glob
import os
import shutil

import lotest

MODULE = """#include <Python.h>
%s
static struct PyModuleDef d = { PyModuleDef_HEAD_INIT, "%s", NULL, -1, NULL };
PyMODINIT_FUNC PyInit_%s(void) { %s return PyModule_Create(&d); }
"""
MESON_B = """project('mpy', 'c')
py = import('python').find_installation()
py.extension_module('keep', 'keep.c')
py.extension_module('broken', 'broken.c')
"""
MESON_A = MESON_B + "py.extension_module('gone', 'gone.c')\n"
MISSING = "lo_meson_missing"
PYENV_SHIM = "/root/.pyenv/shims/python3"


def ext_suffix(python):
    return lotest.run([python, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]
                      ).stdout.strip()


def meson_python():
    """The interpreter find_installation() takes: the one meson itself runs on."""
    with open(shutil.which("meson"), "rb") as f:
        line = f.readline().decode()
    return line[2:].split()[0] if line.startswith("#!/") else lotest.PYTHON


PYTHON = meson_python()
SUFFIX = ext_suffix(PYTHON)


def make_repo(src):
    src.mkdir(parents=True)
    (src / "keep.c").write_text(MODULE % ("", "keep", "keep", ""))
    (src / "gone.c").write_text(MODULE % ("", "gone", "gone", ""))
    (src / "broken.c").write_text(MODULE % ("int %s(void);" % MISSING, "broken", "broken",
                                            "if (%s()) return NULL;" % MISSING))
    (src / "meson.build").write_text(MESON_A)
    lotest.git(src, "init", "-q", "-b", "branch-a")
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-q", "-m", "keep, broken and gone")
    lotest.git(src, "checkout", "-q", "-b", "branch-b")
    (src / "meson.build").write_text(MESON_B)
    lotest.git(src, "commit", "-q", "-am", "drop gone")


def configured_on_b(name):
    """Built on branch-a, then branch-b checked out and reconfigured, not built."""
    d = lotest.workdir(name)
    src, build = d / "src", d / "build"
    make_repo(src)
    lotest.git(src, "checkout", "-q", "branch-a")
    lotest.run(["meson", "setup", build], cwd=src)
    lotest.run(["ninja", "-C", build])
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.run(["meson", "setup", "--reconfigure", build], cwd=src)
    return src, build


def other_pythons():
    """Interpreters this machine has whose modules are named otherwise than meson's."""
    found = {}
    for p in sorted(glob.glob("/root/.pyenv/versions/*/bin/python3")) + \
            sorted(glob.glob("/usr/bin/python3.*[0-9]")):
        s = ext_suffix(p) if os.access(p, os.X_OK) else ""
        if s not in ("", SUFFIX) and s not in found:
            found[s] = p
    return list(found.values())


def environments(work):
    """Name -> variables for the scan: what python3 on PATH is, or none at all.
    Each makes PATH's python3 another interpreter than meson's, where the
    machine has one: today's scans judged against it skip every module."""
    envs = {"no python3 on PATH": {"PATH": "/usr/sbin:/sbin"}}
    base = "/usr/bin:/bin"
    for p in other_pythons()[:2]:
        d = work / ("shim-" + os.path.basename(os.path.dirname(os.path.dirname(p))) +
                    os.path.basename(p))
        lotest.shim(d / "python3", 'exec "%s" "$@"\n' % p)
        envs["a shim to " + p] = {"PATH": "%s:%s" % (d, base)}
    if os.access(PYENV_SHIM, os.X_OK):
        shims = os.path.dirname(PYENV_SHIM)
        versions = [os.path.basename(v) for v in glob.glob("/root/.pyenv/versions/*")]
        envs["pyenv's default"] = {"PATH": "%s:%s" % (shims, base)}
        for v in ["system"] + [v for v in versions if not v.startswith("3.11")][:2]:
            envs["pyenv " + v] = {"PATH": "%s:%s" % (shims, base), "PYENV_VERSION": v}
    return envs


def check_modules(r, why):
    """keep loads, broken does not, by meson's interpreter, whatever PATH says."""
    files = r.files
    assert not [p for p in files if ".p/" in p], (why, sorted(files))
    assert r.doc["summary"]["skipped"] == 0 and r.doc["summary"]["unjudged"] == 0, (why, r)
    keep, broken = files["keep" + SUFFIX], files["broken" + SUFFIX]
    assert keep["verdict"] == "ok" and keep["orphan"] is False, (why, keep)
    assert broken["verdict"] == "broken" and broken["loads"] is False, (why, broken)
    assert broken["orphan"] is False, (why, broken)
    assert any(x["symbol"] == MISSING for x in broken["reasons"]), (why, broken)
    for f in (keep, broken):
        assert f["host"] and os.path.realpath(f["host"]) == os.path.realpath(PYTHON), (why, f)


def test_configured_not_built():
    src, build = configured_on_b("meson-configured")
    # the truth: meson's interpreter cannot import broken, imports keep
    imp = lotest.run([PYTHON, "-c", "import broken"], cwd=build, check=False)
    assert imp.returncode != 0 and MISSING in imp.stderr, imp.stderr
    lotest.run([PYTHON, "-c", "import keep"], cwd=build)
    gone = "gone" + SUFFIX
    assert (build / gone).exists()
    for why, env in environments(build.parent).items():
        r = lotest.scan(build, env=env)
        assert r.rc == 1, (why, r)
        assert lotest.stale_paths(r) == [gone], (why, r)
        assert [x["evidence"] for x in r.reasons(gone, "orphan")] == ["ninja-log"], (why, r)
        check_modules(r, why)
        text = lotest.leftover("scan", build, env=env)
        assert "broken%s: broken" % SUFFIX in text.stdout, (why, text.stdout)
        assert ".p/" not in text.stdout, (why, text.stdout)
        out = lotest.leftover("explain", build / ("broken" + SUFFIX), env=env).stdout
        assert "verdict: broken" in out and "undefined symbol %s" % MISSING in out, (why, out)
    out = lotest.leftover("explain", build / ("keep" + SUFFIX)).stdout
    assert "still built: yes, named by meson-info/intro-targets.json (target keep" in out, out
    lotest.assert_stale_not_rebuilt(r, build, ["ninja", "-C", build])
    # built now: meson removed nothing live, and nothing is stale
    r = lotest.scan(build)
    assert lotest.stale_paths(r) == [], r
    check_modules(r, "after the build")
    assert "no work to do" in lotest.run(["ninja", "-C", build, "-n"]).stdout


def test_private_directories_are_bookkeeping():
    # a dropped module's objects, left in its private dir, are counted, not listed
    src, build = configured_on_b("meson-private")
    obj = glob.glob(str(build / ("gone" + SUFFIX + ".p") / "*.o"))
    assert obj, os.listdir(build)
    r = lotest.scan(build)
    assert not [p for p in r.files if ".p/" in p], sorted(r.files)
    assert r.doc["summary"]["bookkeeping"] >= 1, r.doc["summary"]
    r = lotest.scan(build, args=["--all"])
    assert os.path.relpath(obj[0], build) in r.files, sorted(r.files)
    c = lotest.leftover("clean", build)  # exit 1: broken is left in place
    assert c.returncode == 1 and "moved 1 file" in c.stdout, c.stdout + c.stderr
    assert (build / ("keep" + SUFFIX + ".p")).is_dir() and glob.glob(
        str(build / ("keep" + SUFFIX + ".p") / "*.o")), os.listdir(build)


if __name__ == "__main__":
    lotest.main(globals())
