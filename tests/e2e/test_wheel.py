"""leftover installed where Python developers install tools: the wheel, the sdist, the action.

ci/build-wheel makes the wheel and the sdist once for the file. Each is
installed with `pip install --no-index` into a fresh virtual environment
made with --system-site-packages (so that Debian's pytest is there; there
is no PyPI): one of Debian's python3, one of Debian's PyPy (pypy3, Python
3.9: the other interpreter a fresh Debian machine has; CI has no pyenv).
In each, with a PATH that has no leftover on it, the environment's own
`leftover scan` finds the stale module of the two-branch tree (with the
rules installed in the environment), pytest lists the plugin, `pytest --leftover build` stops before collection and
`--leftover-clean` lets the tests run (under PyPy only the test that
imports nothing of the tree: the fixture's modules are CPython's); a CMake
project finds the package and its program in the activated venv. The
wheel's platform tag is checked against the program's symbol versions as
binutils' readelf reads them, not leftover. The GitHub action's own steps
run as the runner runs them, on a PATH without leftover: it builds and
installs its tree's wheel, then finds the seed; a second run reuses it.
"""
import json
import re
import shutil
import zipfile
from pathlib import Path

import lotest
from test_pytest_plugin import MODULE, PLAIN, TEST_MODULE
from test_twobranch import STALE, make_repo

# a PATH with no leftover on it, and no virtual environment's bin
PATH = "/usr/local/bin:/usr/bin:/bin"
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                   "ld-linux-x86-64.so.2", "libresolv.so.2"}
ACTION = lotest.SOURCE_DIR / "ci" / "github" / "action.yml"
STATE = {}


def debian(*packages):
    """Debian's packages the test needs (ci/install-deps has them; a bare machine may not)."""
    missing = [p for p in packages if "ok installed" not in lotest.run(
        ["dpkg-query", "-W", "-f=${Status}", p], check=False).stdout]
    if missing:
        lotest._apt("install", "-y", "--no-install-recommends", *missing)


def built():
    """(wheel, sdist), built once for the file by the documented command."""
    if not STATE.get("dist"):
        dist = lotest.workdir("dist")
        p = lotest.run([lotest.SOURCE_DIR / "ci" / "build-wheel", dist], timeout=1200,
                       env={"LEFTOVER_WHEEL_BUILD_DIR": str(lotest.WORK / "wheel-build")})
        STATE["dist"] = [Path(line) for line in p.stdout.split()]
    return STATE["dist"]


def project():
    """The two-branch tree built at branch-a then branch-b, with a test suite."""
    if not STATE.get("project"):
        debian("python3-venv", "python3-pytest")
        src, build = make_repo("wheel-project")
        lotest.cmake_build(src, build)
        lotest.git(src, "checkout", "-q", "branch-b")
        lotest.cmake_build(src, build)
        d = src.parent
        (d / "tests").mkdir()
        for n in range(3):
            (d / "tests" / ("test_m%d.py" % n)).write_text(TEST_MODULE.format(n=n))
        (d / "tests" / "test_plain.py").write_text(PLAIN.format(marker=str(d / "plain-ran")))
        (d / "pytest.ini").write_text("[pytest]\npythonpath = build/python_packages\n")
        STATE["project"] = d
    d = STATE["project"]
    if not (d / "build" / STALE).exists():
        assert lotest.leftover("restore", d / "build").returncode == 0
    assert (d / "build" / STALE).exists()
    return d


def venv(python, name, *pip_args):
    """A fresh venv of `python` with Debian's site-packages, and leftover pip-installed."""
    v = lotest.WORK / name
    shutil.rmtree(v, ignore_errors=True)
    lotest.run([python, "-m", "venv", "--system-site-packages", v])
    # no cache: a wheel pip built from the sdist in an earlier run would stand in for the build
    lotest.run([v / "bin" / "python", "-m", "pip", "install", "--no-index", "--no-cache-dir",
                *pip_args],
               env={"PATH": PATH}, timeout=1200)
    return v


def in_env(v, *cmd, cwd=None):
    return lotest.run(cmd, cwd=cwd, env={"PATH": PATH, "VIRTUAL_ENV": str(v)}, check=False)


def check_env(v, tests=()):
    """What a user of the venv sees: scan, pytest's plugin list, --leftover, --leftover-clean."""
    d = project()
    r = lotest.Scan(in_env(v, v / "bin" / "leftover", "scan", "--format", "json", d / "build"))
    assert r.rc == 1 and r.file(STALE)["verdict"] == "stale", r
    rules = in_env(v, v / "bin" / "leftover", "rules", "--show-origin")
    assert rules.stdout.startswith(str(v / "share" / "leftover" / "rules") + "/"), rules.stdout

    pytest = [v / "bin" / "python", "-m", "pytest", "-p", "no:cacheprovider"]
    p = in_env(v, *pytest, "--version", "--version", cwd=d)
    assert re.search(r"leftover-[0-9.]+ at %s/lib/" % re.escape(str(v)), p.stdout + p.stderr), p

    (d / "plain-ran").unlink(missing_ok=True)
    p = in_env(v, *pytest, "--leftover", "build", *tests, cwd=d)
    out = p.stdout + p.stderr
    assert p.returncode == 1 and MODULE in out, out
    assert "collected" not in out and "passed" not in out and not (d / "plain-ran").exists(), out

    p = in_env(v, *pytest, "--leftover", "build", "--leftover-clean", *tests, cwd=d)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "leftover: moved 1 stale file of build" in out, out
    assert "%d passed" % (len(tests) or 4) in out and (d / "plain-ran").exists(), out
    assert not (d / "build" / STALE).exists()


def program_of(wheel):
    """The program the wheel carries, extracted."""
    out = lotest.WORK / "wheel-program"
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".data/scripts/leftover"))
        out.write_bytes(z.read(name))
    return out


def test_the_tag_states_the_glibc_the_program_needs():
    wheel, _ = built()
    program = program_of(wheel)
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", lotest.run(["readelf", "-d", program]).stdout)
    versions = re.findall(r"Name: GLIBC_2\.(\d+)", lotest.run(["readelf", "-V", program]).stdout)
    tag = wheel.name.rsplit("-", 1)[1][:-len(".whl")]
    # only glibc's libraries: manylinux for the newest GLIBC_ version its imports name
    assert set(needed) <= GLIBC_LIBRARIES, needed
    assert tag == "manylinux_2_%d_x86_64" % max(map(int, versions)), (tag, versions)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert "Tag: py3-none-%s" % tag in z.read("leftover-0.1.0.dist-info/WHEEL").decode()
        entry_points = z.read("leftover-0.1.0.dist-info/entry_points.txt").decode()
    assert "[pytest11]\nleftover = pytest_leftover" in entry_points, entry_points
    for part in ("pytest_leftover.py", "share/leftover/rules/python.rules",
                 "share/cmake/Leftover/LeftoverConfig.cmake"):
        assert any(n.endswith(part) for n in names), (part, names)


def test_debian_python_venv():
    wheel, _ = built()
    v = venv("/usr/bin/python3", "venv-debian", wheel)
    check_env(v)
    # the CMake package, found as in an activated venv (its bin on PATH)
    proj = lotest.workdir("cmake-user")
    (proj / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(user NONE)\nfind_package(Leftover REQUIRED)\n"
        "message(STATUS \"leftover: ${LEFTOVER_EXECUTABLE}\")\n")
    p = lotest.run([lotest.CMAKE, "-S", proj, "-B", proj / "build"],
                   env={"PATH": "%s:%s" % (v / "bin", PATH)})
    assert "-- leftover: %s\n" % (v / "bin" / "leftover") in p.stdout, p.stdout


def test_pypy_venv():
    wheel, _ = built()
    # Debian's pytest under PyPy's Python 3.9 needs these two backports
    debian("pypy3", "pypy3-venv", "python3-exceptiongroup", "python3-tomli")
    v = venv("/usr/bin/pypy3", "venv-pypy", wheel)
    assert "PyPy" in in_env(v, v / "bin" / "python", "-VV").stdout
    check_env(v, tests=("tests/test_plain.py",))


def installed(v):
    """The files pip recorded for leftover in venv v, without pip's own bookkeeping."""
    record = next((v / "lib").glob("*/site-packages/leftover-*.dist-info/RECORD"))
    names = {line.split(",")[0] for line in record.read_text().splitlines()}
    return sorted(n for n in names if not re.search(r"dist-info/(RECORD|INSTALLER|REQUESTED|"
                                                    r"direct_url.json)$|__pycache__", n))


def test_sdist_builds_and_installs_the_same():
    wheel, sdist = built()
    v = venv("/usr/bin/python3", "venv-sdist", "--no-build-isolation", sdist)
    assert installed(v) == installed(lotest.WORK / "venv-debian")
    check_env(v)


def action_steps():
    """The action's steps, its inputs' defaults (Debian's python3-yaml reads action.yml)."""
    debian("python3-yaml")
    p = lotest.run([lotest.PYTHON, "-c", "import json, sys, yaml; "
                    "json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)", ACTION])
    doc = json.loads(p.stdout)
    return doc["runs"]["steps"], {k: v.get("default", "") for k, v in doc["inputs"].items()}


def run_action(d, inputs, cache):
    """Each `run:` step as the runner runs it: its shell, its env with the
    expressions filled in, GITHUB_ACTION_PATH, a fresh GITHUB_OUTPUT per
    step; the actions/cache step is the runner's, a directory kept here."""
    steps, defaults = action_steps()
    given = dict(defaults, **inputs)
    outputs, log = {}, []
    summary = d / "step-summary"

    def value(m):
        words = m.group(1).split(".")
        if words[0] == "inputs":
            return given[words[1]]
        assert words[0] == "steps" and words[2] == "outputs", m.group(0)
        return outputs.get(words[1], {}).get(words[3], "")

    for step in steps:
        # this runner is Linux: the steps for macOS and Windows are not run
        systems = re.findall(r"runner\.os == '(\w+)'", step.get("if", ""))
        if systems and "Linux" not in systems:
            continue
        if "uses" in step:
            assert step["uses"].startswith("actions/cache@"), step
            assert "steps.where.outputs.prefix" in step["with"]["path"], step
            continue
        out = d / ("output-" + step["id"])
        out.write_text("")
        env = {k: re.sub(r"\$\{\{\s*(\S+)\s*\}\}", value, str(v)) for k, v in step["env"].items()}
        env.update({"PATH": PATH, "GITHUB_ACTIONS": "true", "GITHUB_ACTION_PATH": str(ACTION.parent),
                    "GITHUB_OUTPUT": str(out), "GITHUB_STEP_SUMMARY": str(summary),
                    "RUNNER_TOOL_CACHE": str(cache)})
        r = lotest.run([step["shell"], "-e", "-c", step["run"]], cwd=d, env=env, check=False,
                       timeout=1200)
        log.append(r)
        assert r.returncode == 0, r
        outputs[step["id"]] = dict(line.split("=", 1) for line in out.read_text().splitlines())
    return outputs, log, summary


def test_github_action_installs_what_it_runs():
    assert not shutil.which("leftover", path=PATH)
    d = project()
    cache = lotest.workdir("tool-cache")
    inputs = {"build-dir": "build", "fail-on": "stale"}
    outputs, log, summary = run_action(d, inputs, cache)
    program = outputs["install-linux"]["program"]
    assert program.startswith(outputs["where"]["prefix"] + "/") and \
        program.startswith(str(cache)), outputs
    assert "installed leftover" in log[1].stdout, log[1]
    clean = outputs["clean"]
    assert clean["findings"] == "1" and clean["moved"] == "1", clean
    # markdown: the summary escapes the module's underscores
    assert MODULE in summary.read_text().replace("\\_", "_"), summary.read_text()
    assert not (d / "build" / STALE).exists()

    # the cache restored (here: left in place): nothing is built again
    project()
    outputs, log, _ = run_action(d, inputs, cache)
    assert outputs["install-linux"]["program"] == program and "installed" not in log[1].stdout, log[1]
    assert outputs["clean"]["moved"] == "1", outputs

    # a program given: that one, no cache, nothing built
    project()
    outputs, log, _ = run_action(d, dict(inputs, leftover=lotest.LEFTOVER), lotest.WORK / "none")
    assert outputs["where"]["key"] == "" and outputs["install-linux"]["program"] == lotest.LEFTOVER
    assert outputs["clean"]["moved"] == "1" and not (lotest.WORK / "none").exists(), outputs


def test_the_stale_verdict_holds_against_the_build():
    d = project()
    wheel, _ = built()
    v = lotest.WORK / "venv-debian"
    r = lotest.Scan(in_env(v, v / "bin" / "leftover", "scan", "--format", "json", d / "build"))
    assert lotest.stale_paths(r) == [STALE], r
    lotest.assert_stale_not_rebuilt(r, d / "build", [lotest.CMAKE, "--build", d / "build"])


if __name__ == "__main__":
    lotest.main(globals())
