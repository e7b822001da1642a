"""leftover in a GitHub Actions job, as the runner and code scanning read it (issue 15).

A real CMake project in git, built at `main`, then rebuilt at `two`, which
dropped the target `gone` from sub/CMakeLists.txt; `broken` is still built
but needs a symbol no library has. The pre-test script runs as the composite
action runs it (GITHUB_ACTIONS, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY set, the
repository as the working directory): the outputs file must name the
reports and the counts, the summary what was found and moved and the
command that undoes the move (run here), and every annotation must point at
a file of the repository: the changed sub/CMakeLists.txt for `gone`, as
`explain` says, the top CMakeLists.txt, on the line naming it, for `broken`.
The SARIF log must pass Microsoft's SARIF Multitool with its GitHub rules
and no warning, and its fingerprints must be the same on a second run.
"""
import json
import re

import lotest
from test_clean_reports import npm_tools

SCRIPT = lotest.SOURCE_DIR / "ci" / "leftover-pre-test"
TOP = """cmake_minimum_required(VERSION 3.20)
project(ci C)
add_library(keep SHARED keep.c)
# still built, but would not load
add_library(broken SHARED broken.c)
add_subdirectory(sub)
"""


def repo(name):
    """src/ (git, branch two checked out) with its build tree src/build/; both paths."""
    d = lotest.workdir(name)
    src = d / "src"
    (src / "sub").mkdir(parents=True)
    (src / "CMakeLists.txt").write_text(TOP)
    (src / "keep.c").write_text("int keep(void) { return 1; }\n")
    (src / "broken.c").write_text("extern int no_library_has_this(void);\n"
                                  "int broken(void) { return no_library_has_this(); }\n")
    (src / "sub" / "gone.c").write_text("int gone(void) { return 2; }\n")
    (src / "sub" / "CMakeLists.txt").write_text("add_library(gone SHARED gone.c)\n")
    (src / ".gitignore").write_text("build/\nleftover-reports/\n")
    lotest.git(src, "init", "-q")
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-qm", "three libraries")
    build = src / "build"
    lotest.cmake_build(src, build, defines={"CMAKE_BUILD_TYPE": "Release"})
    assert lotest.scan(build).rc == 1  # records the commit the tree was built at
    lotest.git(src, "checkout", "-qb", "two")
    (src / "sub" / "CMakeLists.txt").write_text("# gone's target is no more\n")
    lotest.git(src, "commit", "-qam", "drop gone")
    lotest.cmake_build(src, build)
    assert (build / "sub" / "libgone.so").exists()
    return src, build


def annotations(text):
    """(command, {property: value}, message) of each ::error/::warning line."""
    out = []
    for line in text.splitlines():
        m = re.match(r"::(error|warning)( [^:]*)?::(.*)", line)
        if m:
            props = dict(p.split("=", 1) for p in (m.group(2) or "").strip().split(",") if p)
            out.append((m.group(1), props, m.group(3)))
    return out


def test_pretest_under_github_actions():
    src, build = repo("gh-pretest")
    exp = lotest.leftover("explain", build / "sub" / "libgone.so")
    assert "%s/sub/CMakeLists.txt" % src in exp.stdout, exp.stdout
    top_line = TOP.splitlines().index("add_library(broken SHARED broken.c)") + 1

    out, summary = src.parent / "github-output", src.parent / "step-summary"
    env = {"LEFTOVER": lotest.LEFTOVER, "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(out),
           "GITHUB_STEP_SUMMARY": str(summary)}
    r = lotest.run(["dash", SCRIPT, "--fail-on", "never", "build"], cwd=src, env=env, check=False)
    assert r.returncode == 0, r

    outputs = dict(l.split("=", 1) for l in out.read_text().splitlines())
    assert outputs["sarif"] == "leftover-reports/leftover.sarif", outputs
    assert outputs["junit"] == "leftover-reports/leftover-junit.xml", outputs
    assert (src / outputs["sarif"]).is_file() and (src / outputs["junit"]).is_file()
    assert {k: outputs[k] for k in ("judged", "ok", "broken", "stale", "findings", "moved",
                                    "left")} == {"judged": "3", "ok": "1", "broken": "1",
                                                 "stale": "1", "findings": "2", "moved": "1",
                                                 "left": "1"}, outputs
    stamp = outputs["stamp"]
    assert (build / ".leftover.d" / "quarantine" / stamp).is_dir(), stamp

    notes = annotations(r.stdout)
    assert len(notes) == 2, r.stdout
    for cmd, props, msg in notes:
        f = (src / props["file"]).resolve()
        assert f.is_file() and f.is_relative_to(src.resolve()), props
        assert int(props["line"]) >= 1, props
    by_file = {props["file"]: (cmd, props, msg) for cmd, props, msg in notes}
    cmd, props, msg = by_file["sub/CMakeLists.txt"]
    assert cmd == "warning" and msg.startswith("build/sub/libgone.so: no longer built"), msg
    cmd, props, msg = by_file["CMakeLists.txt"]
    assert cmd == "error" and msg.startswith("build/libbroken.so: would not load"), msg
    assert props["line"] == str(top_line), props

    text = summary.read_text()
    assert "| stale | sub/libgone.so |" in text and "moved to the quarantine" in text, text
    assert "| broken | libbroken.so |" in text and "left in place" in text, text
    undo = re.search(r"```sh\n(leftover restore .*)\n```", text)
    assert undo and stamp in undo.group(1), text
    # the undo the summary shows, run as shown
    r = lotest.run(["sh", "-c", lotest.LEFTOVER + undo.group(1)[len("leftover"):]], cwd=src)
    assert (build / "sub" / "libgone.so").exists(), r


def severe(results):
    """The validation results at level error or warning (a result without a level is a warning)."""
    return [(x["ruleId"], x["message"]) for x in results
            if x.get("level", "warning") in ("error", "warning")]


def validate(tools, log, rule_kind):
    out = log.with_suffix(".validation.sarif")
    if out.exists():
        out.unlink()
    exe = next((tools.parent / "@microsoft").glob("sarif-multitool-*/Sarif.Multitool"))
    p = lotest.run([exe, "validate", "--rule-kind", rule_kind, log, "--output", out],
                   env={"DOTNET_SYSTEM_GLOBALIZATION_INVARIANT": "1"}, check=False, timeout=300)
    assert out.exists(), p.stdout + p.stderr
    return json.loads(out.read_text(encoding="utf-8-sig"))["runs"][0].get("results", [])


def test_sarif_for_code_scanning():
    src, build = repo("gh-sarif")
    logs = []
    for i in (1, 2):
        r = lotest.leftover("scan", "--format", "sarif", build)
        assert r.returncode == 1, r
        (src.parent / ("run%d.sarif" % i)).write_text(r.stdout)
        logs.append(json.loads(r.stdout))
    fingerprints = [sorted((x["ruleId"], x["partialFingerprints"]["leftoverArtifact/v1"])
                           for x in log["runs"][0]["results"]) for log in logs]
    assert len(fingerprints[0]) == 2 and fingerprints[0] == fingerprints[1], fingerprints

    run = logs[0]["runs"][0]
    assert run["automationDetails"]["id"] == "leftover/build/Release/", run["automationDetails"]
    assert run["tool"]["driver"]["informationUri"].startswith("https://"), run["tool"]["driver"]
    assert all(r["helpUri"].startswith("https://") for r in run["tool"]["driver"]["rules"])
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file://%s/" % src.resolve(), run
    for x in run["results"]:
        loc = x["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%", loc
        assert (src / loc["artifactLocation"]["uri"]).is_file(), loc
        assert loc["region"]["startLine"] >= 1 and loc["region"]["endColumn"] >= 1, loc
        assert x["message"]["text"].startswith("build/"), x["message"]

    tools = npm_tools()
    if not tools:
        return
    log = src.parent / "run1.sarif"
    # the validator must see what it is asked to: a location without its
    # region warns (SARIF rules), a result without a location fails GitHub's
    bad = json.loads(log.read_text())
    del bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    (src.parent / "control.sarif").write_text(json.dumps(bad))
    assert "SARIF2017" in str(severe(validate(tools, src.parent / "control.sarif", "Sarif;Gh")))
    del bad["runs"][0]["results"][0]["locations"]
    (src.parent / "control.sarif").write_text(json.dumps(bad))
    assert "'GH1" in str(severe(validate(tools, src.parent / "control.sarif", "Sarif;Gh")))
    assert severe(validate(tools, log, "Sarif;Gh")) == []


if __name__ == "__main__":
    lotest.main(globals())
