"""The CI pre-test step: ci/leftover-pre-test and the GitHub action (issue 4).

The script, run with dash (POSIX sh) on a tree with a broken library and a
stale-looking link: it fails the job only on what --fail-on asks for,
leaves the JUnit and SARIF reports, passes extra options through. The
composite action's step is run the way the runner would: its `run:` block
with the inputs in the environment and GITHUB_ACTION_PATH set, under
GITHUB_ACTIONS=true, so the annotations appear.
"""
import json
import os

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
    """The `run: |` block of the action's step, dedented (the action has one step)."""
    lines = ACTION.read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.strip() == "run: |")
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


if __name__ == "__main__":
    lotest.main(globals())
