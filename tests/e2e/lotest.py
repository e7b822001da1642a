"""lotest: the few helpers every end-to-end test of leftover needs.

The e2e tests build real trees with real compilers, CMake and git, then hold
`leftover` against what a user (or the real loader) sees. This module keeps
the plumbing in one place so that each test reads as the scenario it checks:

    import lotest
    def test_something():
        d = lotest.workdir("something")          # fresh scratch dir
        lotest.cc(d / "libx.so", "int x(void){return 1;}")
        r = lotest.scan(d)                       # runs leftover scan --format json
        assert r.rc == 0, r
        assert r.file("libx.so")["verdict"] == "ok"
    if __name__ == "__main__":
        lotest.main(globals())

API (keep it this small):
  LEFTOVER, SOURCE_DIR, PYTHON, WORK, CMAKE   paths from ctest's environment
  CACHE                                       the tools' $XDG_CACHE_HOME, fresh per file
  FIXTURES                                    SOURCE_DIR/fixtures
  workdir(name) -> Path                       empty scratch dir under WORK
  run(cmd, ..., check=True) -> CompletedProcess   text mode, output captured
  leftover(*args, user=None, env=None) -> CompletedProcess  the tool, optionally as
                                              `user`, with `env` added to its environment
  scan(*dirs, args=(), user=None, env=None) -> Scan  `scan --format json`, parsed: .rc, .doc,
                                              .files, .file(path), .reasons(path, kind)
  cc(out, source, *flags, shared=True)        compile C source text to `out`
  cmake_build(src, build, generator=..., defines={})  configure + build, -j2
  git(repo, *args) -> str                     git with a fixed identity
  dlopen(paths, python=None, jobs=1) -> [str] the real loader's answer per path:
                                              "ok", "error MSG", "signal N", "exit N"
  host_load(program, paths) -> [str]          perl's or lua's own answer per path
  inferred_first(path, f) -> [Path]           what an inferred host loaded first (JSON f)
  assert_hosted(r, rels, truth, rule, host, missing)  scan r judged rels from the rule's
                                              host as that program loaded them
  assert_provides_stand_in(tree, rels, rule, ...)  without the program, the scan goes on
  need(program, package) -> str               `program` on PATH, apt-get installing
                                              Debian's `package` first if missing
  assert_stale_not_rebuilt(r, root, build)    the invariant: each file r calls stale is
                                              removed, `build` runs, none comes back
  main(globals())                             run every test_* function

Only the standard library is used: ctest runs these with Debian's python3.
"""

import errno
import grp
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

LEFTOVER = os.environ.get("LEFTOVER", "leftover")
SOURCE_DIR = Path(os.environ.get("LEFTOVER_SOURCE_DIR",
                                 Path(__file__).resolve().parents[2]))
PYTHON = os.environ.get("LEFTOVER_TEST_PYTHON", "/usr/bin/python3")
WORK = Path(os.environ.get("LEFTOVER_WORK", "/tmp/leftover-e2e"))
CMAKE = os.environ.get("LEFTOVER_CMAKE", "cmake")
# the program under test is the portable build (os.h's POSIX bodies): it
# cannot find its own path, so it keeps no verdict cache, and its rename is
# a link then an unlink
PORTABLE = os.environ.get("LEFTOVER_PORTABLE") == "1"
FIXTURES = SOURCE_DIR / "fixtures"

# Tools we run must not see the test runner's loader settings, or the real
# loader and leftover would be judging different worlds.
_CLEAN_ENV = {k: v for k, v in os.environ.items()
              if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT")}

# leftover keeps what each scan saw in the user's cache, by the build dir's
# path: a fresh cache per test file, so that no record of a tree an earlier
# run built at the same path is read, and the runner's own stays untouched.
CACHE = WORK / "xdg-cache"
shutil.rmtree(CACHE, ignore_errors=True)
_CLEAN_ENV["XDG_CACHE_HOME"] = str(CACHE)


def workdir(name):
    """An empty directory WORK/name (removed first if a previous run left it)."""
    d = WORK / name
    if d.exists():
        # A previous run may have left mode-000 files or dirs behind.
        subprocess.run(["chmod", "-R", "u+rwx", str(d)], check=False)
        shutil.rmtree(d)
    d.mkdir(parents=True)
    return d


def run(cmd, cwd=None, env=None, check=True, timeout=600, input=None):
    """Run cmd (a list); on failure with check=True raise with its output."""
    e = dict(_CLEAN_ENV)
    if env:
        e.update(env)
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=e, text=True,
                       capture_output=True, timeout=timeout, input=input,
                       errors="surrogateescape")
    if check and p.returncode != 0:
        raise AssertionError("command failed (%d): %s\n--- stdout\n%s--- stderr\n%s"
                             % (p.returncode, " ".join(map(str, cmd)), p.stdout, p.stderr))
    return p


def leftover(*args, user=None, env=None, timeout=300, cwd=None):
    """Run the tool with args; never raises on its exit status.

    user: run it as that user (e.g. "nobody") through setpriv, to test
    permissions while the suite runs as root.
    env: variables added to its environment (e.g. LD_PRELOAD for faults).
    cwd: the directory it runs in (a version manager's files are looked
    up from there).
    """
    cmd = [LEFTOVER] + [str(a) for a in args]
    env = dict(env or {})
    if user:
        # As login would: the user's own HOME, not root's (whose per-user
        # rule file that user cannot read).
        pw = pwd.getpwnam(user)
        cmd = ["setpriv", "--reuid=" + user, "--regid=" + grp.getgrgid(pw.pw_gid).gr_name,
               "--clear-groups", "--"] + cmd
        env.update({"HOME": pw.pw_dir, "XDG_CONFIG_HOME": os.path.join(pw.pw_dir, ".config")})
    return run(cmd, env=env, check=False, timeout=timeout, cwd=cwd)


class Scan:
    """The result of `leftover scan --format json`: rc, doc, stdout, stderr."""

    def __init__(self, proc):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.doc = None
        if proc.stdout.strip():
            try:
                self.doc = json.loads(proc.stdout)
            except ValueError as e:
                raise AssertionError("leftover printed invalid JSON (%s):\n%s%s"
                                     % (e, proc.stdout, proc.stderr))

    @property
    def files(self):
        """Path (relative to root) -> the file's JSON object."""
        return {f["path"]: f for f in self.doc["files"]}

    def file(self, path):
        """The entry for one relative path; fails, listing what there is, if absent."""
        f = self.files.get(str(path))
        if f is None:
            raise AssertionError("%s not reported; files: %s" % (path, sorted(self.files)))
        return f

    def reasons(self, path, kind=None):
        """The reasons of one file, only those of `kind` when given."""
        return [r for r in self.file(path)["reasons"] if kind is None or r["kind"] == kind]

    def __repr__(self):
        return "leftover exited %d\n--- stdout\n%s--- stderr\n%s" % (self.rc, self.stdout, self.stderr)


def scan(*dirs, args=(), user=None, env=None, cwd=None):
    """`leftover scan --format json [args] DIR...`, parsed (see Scan)."""
    return Scan(leftover("scan", "--format", "json", *args, *dirs, user=user, env=env, cwd=cwd))


def assert_warm_as_cold(*dirs, args=()):
    """A scan of dirs answered from the verdict cache (kept by a scan just
    before, with the same arguments) is the same report, byte for byte, as
    one judged afresh (--no-cache)."""
    leftover("scan", "--format", "json", *args, *dirs)
    time.sleep(0.05)  # past the racy window of what that scan wrote
    warm = leftover("scan", "--format", "json", "--verbose", *args, *dirs)
    cold = leftover("scan", "--format", "json", "--no-cache", *args, *dirs)
    assert "verdict cache used:" in warm.stderr, warm.stderr
    assert warm.stdout == cold.stdout and warm.returncode == cold.returncode, \
        (warm.stdout, cold.stdout)


def traced_scan(tree, syscalls, trace, fmt="json"):
    """`leftover scan --format FMT TREE` under strace (installed from Debian
    when missing), tracing `syscalls` into TRACE.<tid>, a file a thread
    (-ff), so that no call is split across lines by another's, with each
    descriptor's path beside it (-y: `7</dir>`): the parsed report and the
    trace's lines."""
    strace = need("strace", "strace")
    # LeakSanitizer cannot work under ptrace: in the ASan run it would end
    # the process at its exit, before the report on stdout is flushed
    asan = (os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    p = run([strace, "-ff", "-qq", "-y", "-e", "trace=" + syscalls, "-o", trace,
             LEFTOVER, "scan", "--format", fmt, tree], check=False, env={"ASAN_OPTIONS": asan})
    assert p.returncode in (0, 1) and p.stdout, p.stderr
    lines = []
    for f in Path(trace).parent.glob(Path(trace).name + ".*"):
        lines += f.read_text(errors="replace").splitlines()
    return json.loads(p.stdout), lines


def cc(out, source, *flags, shared=True, cwd=None):
    """Compile C source text into `out` (a shared object unless shared=False).

    flags go to gcc after the source (so -L/-l work), e.g.
    cc(d/"libb.so", "...", "-L", d, "-la", "-Wl,-rpath,$ORIGIN").
    """
    return cc_for(NATIVE_ARCH, out, source, *flags, shared=shared, cwd=cwd)


def cc_for(arch, out, source, *flags, shared=True, cwd=None):
    """cc() with the compiler of `arch` (ARCHES; need_arch first)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.parent / (out.name.replace(".", "_") + ".c")
    src.write_text(source)
    cmd = ARCHES[arch]["cc"] + (["-shared", "-fPIC"] if shared else []) + ["-O1", "-o", out, src]
    run(cmd + list(flags), cwd=cwd)
    return out


def cmake_build(src, build, generator="Ninja", defines=None, target=None):
    """Configure src into build with generator (once), then build it with -j2."""
    build = Path(build)
    cmd = [CMAKE, "-S", src, "-B", build, "-G", generator,
           "-DPython3_EXECUTABLE=" + PYTHON]
    for k, v in (defines or {}).items():
        cmd.append("-D%s=%s" % (k, v))
    run(cmd)
    b = [CMAKE, "--build", build, "-j2"]
    if target:
        b += ["--target", target]
    return run(b)


def shim(path, body):
    """An executable bash script at path (a pyenv-like shim, a wrapper)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(0o755)
    return path


def git(repo, *args):
    """git -C repo args..., with an identity so commits work anywhere; stdout."""
    return run(["git", "-C", repo, "-c", "user.name=lotest", "-c",
                "user.email=lotest@example.invalid", "-c", "init.defaultBranch=main",
                "-c", "advice.detachedHead=false"] + list(args)).stdout


def need(program, package):
    """The path of `program` (a name on PATH, or a path), installing Debian's
    `package` when it is missing: CI starts on a bare Debian, and a test that
    needs a reader of its output (xmllint, lintian, a shell) installs it in
    its own setup."""
    def find():
        return program if "/" in program and os.path.exists(program) else shutil.which(program)
    found = find()
    if not found:
        _apt("install", "-y", "--no-install-recommends", package)
        found = find()
    assert found, "%s is not on PATH after installing %s" % (program, package)
    return found


_PROBE = Path(__file__).resolve().parent / "probe"

# The targets the tests hold leftover against (its JSON "arch"): Debian's
# architecture, the packages that compile and run a C program of it here,
# how it is compiled, and how it is run.
# For -m32 not gcc-multilib, which Debian makes conflict with every cross
# compiler (installing one removes it, and the other way round), but its
# parts that do not: gcc's 32-bit libraries and the i386 kernel headers.
_GCC_MAJOR = subprocess.run(["gcc", "-dumpversion"], capture_output=True,
                            text=True).stdout.strip().split(".")[0]
# "run": None is decided on first use (runner()).
ARCHES = {
    "x86_64-linux-gnu": {"deb": "amd64", "tools": [], "cc": ["gcc"], "run": []},
    "i386-linux-gnu": {"deb": "i386",
                       "tools": ["gcc-%s-multilib" % _GCC_MAJOR, "linux-libc-dev:i386",
                                 "libc6:i386", "qemu-user-static"],
                       "cc": ["gcc", "-m32"], "run": None, "qemu": ["qemu-i386-static"]},
    "aarch64-linux-gnu": {"deb": "arm64",
                          "tools": ["gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross",
                                    "qemu-user-static", "libc6:arm64"],
                          "cc": ["aarch64-linux-gnu-gcc"], "run": ["qemu-aarch64-static"]},
    "x86_64-linux-musl": {"deb": "amd64", "tools": ["musl-tools"], "cc": ["musl-gcc"],
                          "run": []},
    "arm-linux-gnueabihf": {"deb": "armhf",
                            "tools": ["gcc-arm-linux-gnueabihf", "libc6-dev-armhf-cross",
                                      "qemu-user-static", "libc6:armhf"],
                            "cc": ["arm-linux-gnueabihf-gcc"], "run": ["qemu-arm-static"]},
    "powerpc64le-linux-gnu": {"deb": "ppc64el",
                              "tools": ["gcc-powerpc64le-linux-gnu", "libc6-dev-ppc64el-cross",
                                        "qemu-user-static", "libc6:ppc64el"],
                              "cc": ["powerpc64le-linux-gnu-gcc"],
                              "run": ["qemu-ppc64le-static"]},
    "s390x-linux-gnu": {"deb": "s390x",
                        "tools": ["gcc-s390x-linux-gnu", "libc6-dev-s390x-cross",
                                  "qemu-user-static", "libc6:s390x"],
                        "cc": ["s390x-linux-gnu-gcc"], "run": ["qemu-s390x-static"]},
    # musl's own multiarch packages bring aarch64-linux-musl-gcc, a specs wrapper
    # around the cross gcc, and /lib/ld-musl-aarch64.so.1
    "aarch64-linux-musl": {"deb": "arm64",
                           "tools": ["gcc-aarch64-linux-gnu", "qemu-user-static", "musl:arm64",
                                     "musl-dev:arm64"],
                           "cc": ["aarch64-linux-musl-gcc"], "run": ["qemu-aarch64-static"]},
    # Debian 12 has no riscv64 packages, only the cross toolchain's libraries
    # under /usr/riscv64-linux-gnu: a root for qemu -L and leftover --sysroot
    "riscv64-linux-gnu": {"deb": None,
                          "tools": ["gcc-riscv64-linux-gnu", "libc6-dev-riscv64-cross",
                                    "qemu-user-static"],
                          "cc": ["riscv64-linux-gnu-gcc"],
                          "run": ["qemu-riscv64-static", "-L", "/usr/riscv64-linux-gnu"]},
}
NATIVE_ARCH = "x86_64-linux-gnu"


def need_arch(arch, packages=()):
    """Make this machine build and run C programs of `arch`, with Debian's
    `packages` of that architecture (names without ":ARCH") installed as
    multiarch packages: CI starts bare, so the test that needs them says so.
    Returns the C compiler command for `arch`."""
    a = ARCHES[arch]
    deb = a["deb"]
    want = a["tools"] + ["%s:%s" % (p, deb) for p in packages]
    missing = [p for p in want if run(["dpkg-query", "-W", "-f=${Status}", p],
                                      check=False).stdout.find("ok installed") < 0]
    if missing:
        if deb and deb not in (run(["dpkg", "--print-foreign-architectures"]).stdout.split()
                               + ["amd64"]):
            _locked(["dpkg", "--add-architecture", deb])
            _apt("update")
        if _apt("install", "-y", "--no-install-recommends", *missing, check=False).returncode:
            _apt("update")  # an index from before the architecture was added
            _apt("install", "-y", "--no-install-recommends", *missing)
    return a["cc"]


def _apt(*args, check=True):
    """apt-get ARGS, waiting for another test's apt-get to finish with the locks."""
    return _locked(["apt-get", "-q", "-o", "DPkg::Lock::Timeout=900"] + list(args), check)


def _locked(cmd, check=True):
    """cmd (apt-get, dpkg), again while another test's holds the lock it needs."""
    for _ in range(60):
        r = run(cmd, env={"DEBIAN_FRONTEND": "noninteractive"}, timeout=1800, check=False)
        if r.returncode == 0 or "lock" not in r.stderr.lower():
            break
        time.sleep(5)
    if check and r.returncode:
        raise AssertionError("%s failed:\n%s" % (" ".join(map(str, cmd)), r.stderr))
    return r


def _probe_program(arch=NATIVE_ARCH):
    """tests/e2e/probe/dlopen_probe.c compiled for `arch` (once per WORK) with libc only."""
    exe = WORK / ".probe" / ("dlopen_probe-" + arch)
    src = _PROBE / "dlopen_probe.c"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        exe.parent.mkdir(parents=True, exist_ok=True)
        run(ARCHES[arch]["cc"] + ["-O1", "-std=c11", "-o", exe, src])
    return exe


def runner(arch):
    """How a program of `arch` is run here: natively where the kernel can
    (i386 on x86-64 with IA-32 emulation on; some kernels, such as this
    project's CI machines', have it off and refuse with ENOEXEC), else
    under qemu-user, whose loader and libraries are still the target's own."""
    a = ARCHES[arch]
    if a["run"] is None:
        try:
            subprocess.run([_probe_program(arch), "1"], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60)
            a["run"] = []
        except OSError as e:
            if e.errno != errno.ENOEXEC:
                raise
            a["run"] = a["qemu"]
    return a["run"]


def dlopen(paths, python=None, jobs=1, timeout=10, arch=NATIVE_ARCH, run=None):
    """What the real loader does with each path, from the host leftover assumes.

    python=None: dlopen(path, RTLD_NOW|RTLD_LOCAL) from a plain C program
    of `arch` (probe/dlopen_probe.c; under qemu-user for another
    architecture); python=INTERPRETER: loaded by that interpreter
    (probe/pyimport_probe.py). Each file is tried in its own forked child,
    without LD_LIBRARY_PATH/LD_PRELOAD, killed after `timeout` seconds.
    Returns, in order, "ok", "error <dlerror()>", "signal N" (14: timeout)
    or "exit N" (a constructor exited).
    jobs > 1 splits the list over that many probe processes. run: what
    runs the probe instead of runner(arch) (qemu with -L ROOT, the
    loader with its own options).
    """
    paths = [os.fsencode(str(p)) for p in paths]
    if python:
        cmd = [python, _PROBE / "pyimport_probe.py", str(timeout)]
    else:
        cmd = (runner(arch) if run is None else run) + [_probe_program(arch), str(timeout)]
    jobs = max(1, min(jobs, len(paths)))
    chunks = [paths[i::jobs] for i in range(jobs)]
    procs = [subprocess.Popen([str(c) for c in cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=_CLEAN_ENV) for _ in chunks]
    # Feed each probe from its own thread: a probe answers while it reads,
    # so writing all input before reading any output could fill both pipes.
    def feed(p, chunk):
        p.stdin.write(b"".join(c + b"\0" for c in chunk))
        p.stdin.close()
    feeders = [threading.Thread(target=feed, args=pc) for pc in zip(procs, chunks)]
    for t in feeders:
        t.start()
    out = [None] * len(paths)
    for j, p in enumerate(procs):
        text = p.stdout.read().decode("utf-8", "replace")
        p.wait()
        feeders[j].join()
        for line in text.splitlines():
            i, _, answer = line.partition(" ")
            out[int(i) * jobs + j] = answer
    missing = [paths[i] for i, a in enumerate(out) if a is None]
    assert not missing, "the loader probe gave no answer for %s" % missing[:5]
    return out


# How each interpreter loads a native module itself, RTLD_NOW as leftover
# judges: a one-line program per host, given the path in $LEFTOVER_PROBE_PATH,
# printing "ok" or failing with the loader's message.
_HOST_LOADS = {
    "perl": ["-MDynaLoader", "-e", "DynaLoader::dl_load_file($ENV{LEFTOVER_PROBE_PATH}, 0) "
             "or die DynaLoader::dl_error(); print 'ok'"],
    # '*' (link only) is Lua 5.2's: 5.1 opens the library RTLD_NOW all the
    # same, then fails to find a function named "*", its third result "init"
    # where a failed open is "open"
    "lua": ["-e", "local f, e, w = package.loadlib(os.getenv('LEFTOVER_PROBE_PATH'), '*') "
            "if not f and w ~= 'init' then io.stderr:write(e) os.exit(1) end io.write('ok')"],
    "node": ["-e", "const m = {exports: {}}; try { process.dlopen(m, "
             "process.env.LEFTOVER_PROBE_PATH, require('os').constants.dlopen.RTLD_NOW); "
             "process.stdout.write('ok') } catch (e) { process.stderr.write(e.message); "
             "process.exit(1) }"],
}


def host_load(program, paths, timeout=10, first=None):
    """What `program` answers when it loads each path itself: "ok" or "error
    MSG", one process per path. perl, lua and node load it with their own
    loaders; any other program loads it inside its process (load_inside),
    having loaded first[i] before paths[i] where given."""
    kind = [k for k in _HOST_LOADS if os.path.basename(program).startswith(k)]
    if not kind:
        return load_inside(program, paths, timeout=timeout, first=first)
    out = []
    for p in paths:
        r = run([program] + _HOST_LOADS[kind[0]], check=False, timeout=timeout,
                env={"LEFTOVER_PROBE_PATH": str(p), "PERL_DL_NONLAZY": "1"})
        out.append("ok" if r.returncode == 0 and r.stdout == "ok"
                   else "error " + (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0])
    return out


# Loads a plugin inside a program that has no command to load one: given to
# the program with LD_PRELOAD, its constructor runs in the program's own
# process once the loader has relocated it, loads the libraries of
# $LEFTOVER_PROBE_FIRST (colon-separated) as the program loads its own
# first (RTLD_LAZY | RTLD_GLOBAL), then $LEFTOVER_PROBE_PATH as the program
# would (RTLD_NOW | RTLD_GLOBAL), prints "ok" or dlerror(), and exits
# before the program's main.
_PRELOAD_PROBE = r"""#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void leftover_probe_load(void) {
  const char *p = getenv("LEFTOVER_PROBE_PATH"), *first = getenv("LEFTOVER_PROBE_FIRST");
  char *list, *save = NULL, *f;
  if (!p) return;
  list = strdup(first ? first : "");
  for (f = strtok_r(list, ":", &save); f; f = strtok_r(NULL, ":", &save))
    if (!dlopen(f, RTLD_LAZY | RTLD_GLOBAL)) { p = NULL; break; }
  fputs(p && dlopen(p, RTLD_NOW | RTLD_GLOBAL) ? "ok" : dlerror(), stdout);
  fflush(stdout); _exit(0); }
"""


def load_inside(program, paths, timeout=30, first=None):
    """What `program` answers when each path is loaded inside its process (see
    _PRELOAD_PROBE): "ok" or "error MSG", one process per path. first: per
    path, the libraries the program has loaded before it (a list each)."""
    probe = WORK / "lotest-preload-probe.so"
    src = WORK / "lotest-preload-probe_so.c"
    # a work dir kept from a run of an older probe holds that one: built again
    if not probe.exists() or not src.exists() or src.read_text() != _PRELOAD_PROBE:
        cc(probe, _PRELOAD_PROBE, "-ldl")
    out = []
    for i, p in enumerate(paths):
        r = run([program, "--version"], check=False, timeout=timeout,
                env={"LD_PRELOAD": str(probe), "LEFTOVER_PROBE_PATH": str(p),
                     "LEFTOVER_PROBE_FIRST": ":".join(map(str, first[i] if first else []))})
        out.append("ok" if r.stdout == "ok" else "error " + (r.stdout or r.stderr[-300:]))
    return out


def inferred_first(path, f):
    """The libraries beside `path` that leftover took its inferred host (its
    JSON `f`'s host_inferred) to have loaded first: full paths, in order."""
    m = re.search(r"having loaded first (.*)$", f.get("host_inferred") or "")
    return [os.path.join(os.path.dirname(str(path)), n) for n in m.group(1).split(", ")] \
        if m else []


def assert_hosted(r, rels, truth, rule, host, missing):
    """In scan `r`, each of `rels` was judged from [host "rule"]'s program
    `host` (the same file, whatever the path) as that program itself loaded
    it (`truth`, in order: "ok" or its error), and each that fails lacks
    exactly the symbol `missing`."""
    for rel, answer in zip(rels, truth):
        f = r.file(rel)
        assert f["loads"] is (answer == "ok"), (rel, f, answer)
        assert f["host_rule"] == rule and f["host"] and \
            os.path.realpath(f["host"]) == os.path.realpath(host), f
        if answer != "ok":
            assert {x["symbol"] for x in r.reasons(rel, "undefined-symbol")} == {missing}, f


def assert_provides_stand_in(tree, rels, rule, args=(), env=None):
    """A scan of `tree` where [host "rule"]'s program is missing (not on
    PATH by default): it goes on, exit 0, and the rule's provides stand in
    for the program, so each of `rels` is ok, by the rule, with no host."""
    r = scan(tree, args=args, env={"PATH": "/usr/sbin:/sbin"} if env is None else env)
    assert r.rc == 0, r
    for rel in rels:
        f = r.file(rel)
        assert f["host_rule"] == rule and f["host"] is None and f["verdict"] == "ok", f
    return r


def stale_paths(r):
    """The files a scan calls stale (its JSON "verdict"), relative to its root."""
    return sorted(f["path"] for f in r.doc["files"] if f["verdict"] == "stale")


def assert_stale_not_rebuilt(r, root, build, cwd=None, env=None):
    """Hold every stale verdict of scan `r` of `root` against the build itself:
    remove each file called stale, run `build` (a command list, run in `cwd`,
    default root), and assert that none of them comes back. "Stale" means the
    checked-out sources' build would not make the file again; this is that
    promise checked by the build, not by leftover. Returns the paths removed."""
    root = Path(root)
    gone = stale_paths(r)
    for rel in gone:
        p = root / rel
        if p.is_symlink() or p.exists():
            p.unlink()
    run(build, cwd=cwd or root, env=env)
    back = [rel for rel in gone if (root / rel).is_symlink() or (root / rel).exists()]
    assert not back, "called stale, yet the build made them again: %s\n%r" % (back, r)
    return gone


def main(namespace):
    """Run every test_* function of the calling module, in source order.

    One line per test; the traceback of each failure; exit 1 if any failed.
    Tests use plain assert, so refuse to run with assertions disabled.
    """
    if not __debug__:
        sys.exit("lotest: run without -O, the tests rely on assert")
    tests = [(n, f) for n, f in namespace.items() if n.startswith("test_") and callable(f)]
    tests.sort(key=lambda t: t[1].__code__.co_firstlineno)
    only = sys.argv[1:]
    failed = []
    for name, fn in tests:
        if only and name not in only:
            continue
        try:
            fn()
        except Exception:
            failed.append(name)
            print("FAIL", name, flush=True)
            traceback.print_exc(file=sys.stdout)
        else:
            print("ok  ", name, flush=True)
    print("%d tests, %d failed%s" % (len(tests) if not only else len(only), len(failed),
                                     (": " + " ".join(failed)) if failed else ""))
    sys.exit(1 if failed else 0)
