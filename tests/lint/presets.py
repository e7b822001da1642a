#!/usr/bin/env python3
"""presets.py SOURCE_DIR CMAKE WORK: CMakePresets.json holds together (lint.presets).

CMake itself reads the file (`cmake --list-presets=all`, which fails on a
preset that names one that is not there or a schema this CMake cannot
read): it must list every preset of the file, but the configure presets
whose condition names another system, and refuse those (`cmake --preset
macos` here). The systems the presets are for each have theirs, and a
toolchain file a preset names exists. Then the linux-portable preset is
configured into WORK (about 6 s; its build would cost 45 s more and
ci/test-portable builds the same): it must pick Ninja and the OS layer's
plain POSIX bodies, as the build a Mac gets. Prints each fault, exits 1.
"""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

SYSTEMS = {"linux": "Linux", "linux-portable": "Linux", "macos": "Darwin",
           "windows-msys2": "Windows", "windows-cross": "Linux"}


def run(cmd, cwd):
    return subprocess.run([str(c) for c in cmd], cwd=cwd, text=True, capture_output=True)


def system_of(preset, by_name):
    """The hostSystemName a configure preset's condition asks for (inherited), or None."""
    while preset:
        cond = preset.get("condition")
        if cond:
            assert cond["type"] == "equals" and cond["lhs"] == "${hostSystemName}", cond
            return cond["rhs"]
        parents = preset.get("inherits", [])
        parents = [parents] if isinstance(parents, str) else parents
        preset = by_name[parents[0]] if parents else None
    return None


def main():
    src, cmake, work = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    doc = json.loads((src / "CMakePresets.json").read_text())
    faults = []
    listed = run([cmake, "--list-presets=all"], src)
    if listed.returncode:
        print("cmake --list-presets=all failed:\n" + listed.stderr)
        return 1
    shown = {}
    for kind, body in re.findall(r"Available (\w+) presets:\n\n((?:  .*\n)+)", listed.stdout):
        shown[kind] = set(re.findall(r'^  "([^"]+)"', body, re.M))
    configure = {p["name"]: p for p in doc["configurePresets"]}
    for name, system in SYSTEMS.items():
        if system_of(configure.get(name), configure) != system:
            faults.append("configure preset %s: not one for %s" % (name, system))
    here = {n for n, p in configure.items()
            if not p.get("hidden") and system_of(p, configure) in (None, "Linux")}
    if shown.get("configure") != here:
        faults.append("configure presets listed %s, the file has %s for Linux"
                      % (sorted(shown.get("configure", ())), sorted(here)))
    for kind in ("build", "test", "workflow"):
        names = {p["name"] for p in doc.get(kind + "Presets", [])}
        if shown.get(kind, set()) != names:
            faults.append("%s presets listed %s, the file has %s"
                          % (kind, sorted(shown.get(kind, ())), sorted(names)))
    for name, p in configure.items():
        tc = p.get("toolchainFile", "").replace("${sourceDir}", str(src))
        if tc and not Path(tc).is_file():
            faults.append("configure preset %s: no toolchain file %s" % (name, tc))
    refused = run([cmake, "--preset", "macos", "-B", work / "macos"], src)
    if refused.returncode == 0 or "disabled preset" not in refused.stderr:
        faults.append("cmake --preset macos was not refused on Linux: " + refused.stderr)

    build = work / "linux-portable"
    shutil.rmtree(build, ignore_errors=True)
    conf = run([cmake, "--preset", "linux-portable", "-B", build], src)
    if conf.returncode:
        faults.append("cmake --preset linux-portable failed:\n" + conf.stderr)
    else:
        cache = (build / "CMakeCache.txt").read_text()
        ninja = (build / "build.ninja").read_text()
        if "CMAKE_GENERATOR:INTERNAL=Ninja\n" not in cache:
            faults.append("linux-portable: not Ninja")
        if "src/os/fs_posix.c" not in ninja or "src/os/fs_linux.c" in ninja:
            faults.append("linux-portable: not the OS layer's POSIX bodies")
    for f in faults:
        print(f)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
