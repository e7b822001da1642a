"""The CI pre-test step: ci/leftover-pre-test and the GitHub action (issue 4).

The script, run with dash (POSIX sh) on a tree with a broken library and a
stale-looking link: it fails the job only on what --fail-on asks for,
leaves the JUnit and SARIF reports, passes extra options through. The
composite action's step is run the way the runner would: its `run:` block
with the inputs in the environment and GITHUB_ACTION_PATH set, under
GITHUB_ACTIONS=true, so the annotations appear. On each of GitHub's three
runner systems the action has one step that builds leftover, after the
libraries the build links (CMakeLists.txt's pkg-config modules) are
installed, with the CMakePresets.json preset for that system (macOS,
Windows; Linux builds the wheel); every `run:` block parses in its shell.
"""
import json
import os
import re

import lotest

SCRIPT = lotest.SOURCE_DIR / "ci" / "leftover-pre-test"
ACTION = lotest.SOURCE_DIR / "ci" / "github" / "action.yml"
BROKEN_C = "extern int no_library_has_this(void);\nint f(void) { return no_library_has_this(); }\n"


def tree(d):
    build = d / "build"
    lotest.cc(build / "lib" / "libbroken.so", BROKEN_C)
    lotest.cc(build / "lib" / "libok.so", "int g(void) { return 1; }\n")
    for p in (build / "lib").glob("*.c"):
        p.unlink()
    return build


def pre_test(d, *args, env=None):
    e = {"LEFTOVER": lotest.LEFTOVER}
    e.update(env or {})
    return lotest.run(["dash", SCRIPT] + [str(a) for a in args], cwd=d, env=e, check=False)


def test_fails_only_on_what_is_asked():
    d = lotest.workdir("pretest")
    build = tree(d)
    r = pre_test(d, build)
    assert r.returncode == 1, r
    assert "fail this job" in r.stderr, r.stderr
    assert (build / "lib" / "libbroken.so").exists()
    junit = (d / "leftover-reports" / "leftover-junit.xml").read_text()
    assert 'tests="2" failures="1"' in junit, junit
    sarif = json.loads((d / "leftover-reports" / "leftover.sarif").read_text())
    assert [x["ruleId"] for x in sarif["runs"][0]["results"]] == ["broken"], sarif

    r = pre_test(d, "--fail-on", "never", "--report-dir", d / "r2", build)
    assert r.returncode == 0, r
    assert (d / "r2" / "leftover.sarif").exists()

    r = pre_test(d, "--broken", build, "--", "--verbose")
    assert r.returncode == 0, r
    assert "moved lib/libbroken.so" in r.stdout, r.stdout  # --verbose went through
    assert not (build / "lib" / "libbroken.so").exists()


def test_usage_and_environment_errors():
    d = lotest.workdir("pretest-usage")
    assert pre_test(d).returncode == 2
    r = pre_test(d, "--fail-on", "sometimes", d)
    assert r.returncode == 2 and "--fail-on" in r.stderr, r
    r = pre_test(d, "--leftover", d / "no-such-program", d)
    assert r.returncode == 2 and "cannot find" in r.stderr, r
    r = pre_test(d, "--help")
    assert r.returncode == 0 and "BUILD_DIR" in r.stdout, r


def action_run_block():
    """The `run: |` block of the action's clean step, dedented."""
    lines = ACTION.read_text().splitlines()
    clean = lines.index("      id: clean")
    start = next(i for i, l in enumerate(lines) if i > clean and l.strip() == "run: |")
    indent = len(lines[start]) - len(lines[start].lstrip()) + 2
    body = []
    for l in lines[start + 1:]:
        if l.strip() and len(l) - len(l.lstrip()) < indent:
            break
        body.append(l[indent:])
    return "\n".join(body) + "\n"


def test_github_action_step():
    d = lotest.workdir("pretest-action")
    build = tree(d)
    text = ACTION.read_text()
    for key in ("build-dir:", "fail-on:", "broken:", "report-dir:", "leftover:", "python:",
                "using: composite"):
        assert key in text, key
    env = {"GITHUB_ACTIONS": "true", "GITHUB_ACTION_PATH": str(ACTION.parent),
           "LO_BUILD_DIR": str(build), "LO_FAIL_ON": "broken", "LO_BROKEN": "false",
           "LO_REPORT_DIR": str(d / "reports"), "LO_LEFTOVER": lotest.LEFTOVER}
    r = lotest.run(["dash", "-e", "-c", action_run_block()], cwd=d, env=env, check=False)
    assert r.returncode == 1, r
    assert "title=leftover broken::" in r.stdout and "/lib/libbroken.so: would" in r.stdout, r.stdout
    assert (d / "reports" / "leftover-junit.xml").exists()
    env["LO_BROKEN"] = "true"
    r = lotest.run(["dash", "-e", "-c", action_run_block()], cwd=d, env=env, check=False)
    assert r.returncode == 0, r
    assert "::warning " in r.stdout and "title=leftover broken::" in r.stdout, r.stdout
    assert not (build / "lib" / "libbroken.so").exists()

    # the python input reaches leftover clean as --python (a stand-in program records its words)
    argv = d / "argv"
    fake = d / "fake-leftover"
    fake.write_text("#!/bin/sh\nprintf '%%s\\n' \"$@\" > %s\n" % argv)
    fake.chmod(0o755)
    env.update({"LO_LEFTOVER": str(fake), "LO_PYTHON": "/opt/py 3/bin/python3"})
    r = lotest.run(["dash", "-e", "-c", action_run_block()], cwd=d, env=env, check=False)
    assert r.returncode == 0, r
    words = argv.read_text().splitlines()
    assert words[0] == "clean" and words[-1] == str(build), words
    i = words.index("--python")
    assert words[i + 1] == "/opt/py 3/bin/python3", words


def action_steps():
    """The action's steps, as Debian's python3-yaml (ci/install-deps) reads them."""
    p = lotest.run([lotest.PYTHON, "-c", "import json, sys, yaml; "
                    "json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)", ACTION])
    return json.loads(p.stdout)["runs"]["steps"]


def test_github_action_on_each_runner():
    steps = action_steps()
    src = lotest.SOURCE_DIR
    systems = {p["name"]: p.get("condition", {}).get("rhs")
               for p in json.loads((src / "CMakePresets.json").read_text())["configurePresets"]}
    libs = re.findall(r"pkg_check_modules\(\w+ REQUIRED IMPORTED_TARGET (\S+)\)",
                      (src / "CMakeLists.txt").read_text())
    assert libs, "no pkg-config module in CMakeLists.txt"
    for runner, system in (("Linux", "Linux"), ("macOS", "Darwin"), ("Windows", "Windows")):
        mine = [s for s in steps
                if runner in re.findall(r"runner\.os == '(\w+)'", s.get("if", runner))]
        builds = [i for i, s in enumerate(mine) if '/install-leftover" build' in s.get("run", "")]
        assert len(builds) == 1, (runner, mine)
        build = mine[builds[0]]
        preset = build.get("env", {}).get("LO_PRESET")
        assert (preset and systems.get(preset) == system) or (runner == "Linux" and not preset), \
            (runner, preset, systems)
        before = " ".join(s.get("run", "") + " " + s.get("with", {}).get("install", "")
                          for s in mine[:builds[0]])
        for lib in libs if runner != "Linux" else ():
            word = "mingw-w64-x86_64-" + lib if runner == "Windows" else lib
            assert re.search(r"(^|\s)%s(\s|$)" % re.escape(word), before), (runner, word, before)
        for s in mine:
            if "uses" in s:
                assert re.match(r"(actions/cache|msys2/setup-msys2)@", s["uses"]), s
                continue
            assert s["shell"] == "bash" or (runner == "Windows" and s["shell"] == "msys2 {0}"), s
            r = lotest.run(["bash", "-n", "-c", s["run"]], check=False)
            assert r.returncode == 0, (s, r.stderr)

    # the program's name and the cache key's path, as a Windows runner's bash sees them
    d = lotest.workdir("action-where")
    for runner, name in (("Linux", "leftover"), ("Windows", "leftover.exe")):
        out = d / ("output-" + runner)
        lotest.run(["bash", ACTION.parent / "install-leftover", "where"], env={
            "GITHUB_ACTION_PATH": str(ACTION.parent), "GITHUB_OUTPUT": str(out),
            "RUNNER_OS": runner, "RUNNER_TOOL_CACHE": str(d)})
        got = dict(line.split("=", 1) for line in out.read_text().splitlines())
        assert got["program"] == got["prefix"] + "/bin/" + name, got
        assert got["key"] == "leftover-" + got["prefix"].rsplit("/", 1)[1], got


if __name__ == "__main__":
    lotest.main(globals())
