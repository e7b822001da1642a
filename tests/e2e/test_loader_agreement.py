"""leftover's `loads` against the real loader, object by object.

For every ELF shared object in the fixtures (every tree test_cases.py
builds, and the two-branch build dir reused across branches) and in
/usr/lib/x86_64-linux-gnu, ask glibc: dlopen(path, RTLD_NOW|RTLD_LOCAL) in a
forked child with a clean environment, from the host leftover assumes (a
libc-only C program, the interpreter for a Python extension module, or
perl or lua loading the module itself for what the default rules give
them).
Then compare with `loads` from `leftover scan --format json`.

Counted: the files that load, and those whose loader error is about a
symbol, a version, a library or the ELF class, which is what leftover
models. Listed, not counted: failures for other reasons (static TLS
exhausted, a sanitizer runtime that exits, a constructor that crashes,
timeouts, a truncated file the loader dies on). The test prints
`agreement: N/M` and every disagreement with both sides' reasons, and fails
on any disagreement in the counted set.
"""
import os
import re
import sys
from pathlib import Path

import lotest
import test_cases

SYSTEM_DIR = Path("/usr/lib/x86_64-linux-gnu")
ET_DYN = 3

# Loader errors about what leftover models. glibc reports a library of the
# wrong machine given by path as "cannot open shared object file"; musl says
# "Error loading shared library" and "symbol not found".
COUNTED = re.compile(r"undefined symbol|version `[^']*' not found|cannot open shared object file"
                     r"|wrong ELF class|Error loading shared library|symbol not found")


def is_elf_shared_object(path):
    try:
        with open(path, "rb") as f:
            head = f.read(18)
    except OSError:
        return False
    return len(head) == 18 and head[:4] == b"\x7fELF" and \
        int.from_bytes(head[16:18], "little" if head[5] == 1 else "big") == ET_DYN


def build_fixtures():
    top = lotest.workdir("agreement")
    for b in test_cases.BUILDERS:
        d = top / "cases" / b.__name__[len("build_"):]
        d.mkdir(parents=True)
        b(d)
    # The two-branch tree as the user has it: branch-a built, branch-b rebuilt over it.
    tb = top / "twobranch"
    lotest.run(["sh", lotest.FIXTURES / "twobranch" / "make-repo.sh", tb / "src"])
    lotest.cmake_build(tb / "src", tb / "build")
    lotest.git(tb / "src", "checkout", "-q", "branch-b")
    lotest.cmake_build(tb / "src", tb / "build")
    return top


def leftover_view(root):
    """(absolute path, JSON entry) for every ELF shared object leftover reports under root."""
    r = lotest.scan(root)
    assert r.rc in (0, 1), r
    out = []
    for f in r.doc["files"]:
        p = Path(r.doc["root"]) / f["path"]
        if is_elf_shared_object(p):
            out.append((p, f))
    return out


def loader_view(entries):
    """The real loader's answer for each entry, from the host leftover names for it."""
    answers = [None] * len(entries)
    groups = {}
    for i, (p, f) in enumerate(entries):
        if f["loads"] is not None:  # unjudged: leftover claims nothing to check
            groups.setdefault((f["kind"], f["host"], f["arch"]), []).append(i)
    for (kind, host, arch), idx in groups.items():
        paths = [entries[i][0] for i in idx]
        if kind == "python-extension" or not host:
            # a plain C program of the target leftover judged it for (its "arch")
            got = lotest.dlopen(paths, python=host, jobs=2,
                                arch=arch if not host else lotest.NATIVE_ARCH)
        else:
            # a [host] rule's program (perl for XS modules), or one inferred (zsh for its
            # modules, with what leftover says it loaded first): it loads them itself
            got = lotest.host_load(host, paths, first=[lotest.inferred_first(
                entries[i][0], entries[i][1]) for i in idx])
        for i, a in zip(idx, got):
            answers[i] = a
    return answers


def why(f):
    return "; ".join(r["detail"] or r["kind"] for r in f["reasons"]) or "(no reasons)"


def test_leftover_agrees_with_dlopen():
    top = build_fixtures()
    # The build dir is scanned as its own root, so that leftover takes the
    # interpreter from its CMakeCache.txt, as for a user scanning it.
    entries = (leftover_view(top / "cases") + leftover_view(top / "twobranch" / "build")
               + leftover_view(SYSTEM_DIR))
    answers = loader_view(entries)
    counted, disagree, other = 0, [], []
    for (p, f), a in zip(entries, answers):
        if a is None:
            other.append((p, f, "(no load played: %s)" % why(f)))
            continue
        if f["host_rule"] and not f["host"]:
            # its host (lua5.1, say) is not installed here: leftover judged it by
            # the rule's provides, and no program here can say otherwise
            other.append((p, f, "(host of [host \"%s\"] not installed)" % f["host_rule"]))
            continue
        if a != "ok" and not (a.startswith("error ") and COUNTED.search(a)):
            other.append((p, f, a))
            continue
        counted += 1
        if f["loads"] is not (a == "ok"):
            disagree.append((p, f, a))
    fixtures = sum(1 for p, _ in entries if top in p.parents)
    print("objects: %d (%d in the fixtures, %d in %s)"
          % (len(entries), fixtures, len(entries) - fixtures, SYSTEM_DIR))
    print("agreement: %d/%d" % (counted - len(disagree), counted))
    # per host, as docs/loader-model.md's table gives it
    by_host = {}
    for (p, f), a in zip(entries, answers):
        if a is None or (f["host_rule"] and not f["host"]):
            continue
        if a != "ok" and not (a.startswith("error ") and COUNTED.search(a)):
            continue
        host = f["host_rule"] or ("python" if f["kind"] == "python-extension" else "C")
        if f["arch"] != lotest.NATIVE_ARCH:
            host += " " + f["arch"]
        n = by_host.setdefault(host, [0, 0])
        n[0] += f["loads"] is (a == "ok")
        n[1] += 1
    for host, (agree, n) in sorted(by_host.items()):
        print("  %-8s %d/%d" % (host, agree, n))
    for p, f, a in disagree:
        print("DISAGREE %s\n    dlopen:   %s\n    leftover: loads=%s verdict=%s: %s"
              % (p, a, f["loads"], f["verdict"], why(f)))
    if other:
        print("not counted (the loader failed for a reason leftover does not model):")
        for p, f, a in other:
            print("    %s: %s (leftover: loads=%s, %s)" % (p, a or "?", f["loads"], f["verdict"]))
    sys.stdout.flush()
    assert fixtures >= 20, "the fixtures made only %d objects" % fixtures
    assert not disagree, "%d disagreements with the real loader" % len(disagree)


if __name__ == "__main__":
    lotest.main(globals())
