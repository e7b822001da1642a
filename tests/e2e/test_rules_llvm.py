"""LLVM pass plugins under the default rules (rules/llvm.rules).

A pass plugin exports llvmGetPassPluginInfo and takes LLVM's C++ API from
the libLLVM of the opt that loads it. leftover knows one by that export
and judges it from opt: the one beside it (Debian's llvm-N/lib next to
llvm-N/bin/opt), else opt on PATH, else the newest of Debian's. Truth:
`opt -load-pass-plugin=PATH` in a child, one per plugin, with
LD_BIND_NOW=1 (LLVM dlopen()s plugins with RTLD_LAZY; leftover judges as
RTLD_NOW binds); opt says "Failed to load passes" when the load fails.
Debian's Polly plugin loads, then aborts in its constructors (it is also
linked into Debian's libLLVM, and registers its options twice): loaded.
llvm-14 is installed by the test when missing. The test plugins declare
the few LLVM functions they call themselves: no LLVM headers are needed.
"""
import os

import lotest

PLUGIN = """#include <stdint.h>
namespace llvm { class raw_ostream; raw_ostream &errs(); %s }
struct info { uint32_t api; const char *name, *version; void (*callbacks)(void *); };
static void callbacks(void *) { llvm::errs(); %s }
extern "C" info llvmGetPassPluginInfo() { return { 1, "t", "1", callbacks }; }
"""


def opt_load(opt, work, paths):
    """What opt says when it loads each plugin: "ok" or "error MSG"."""
    ir = work / "empty.ll"
    ir.write_text("\n")
    out = []
    for p in paths:
        r = lotest.run([opt, "-load-pass-plugin=%s" % p, "-passes=verify", "-disable-output",
                        ir], check=False, timeout=60, env={"LD_BIND_NOW": "1"})
        out.append("error " + r.stderr.strip() if "Failed to load passes" in r.stderr else "ok")
    return out


def test_llvm_pass_plugins_are_judged_from_opt():
    lotest.need("g++", "g++")
    opt = lotest.need("/usr/lib/llvm-14/bin/opt", "llvm-14")
    work = lotest.workdir("rules-llvm")
    tree = work / "tree"
    tree.mkdir()
    rels = ["good.so", "bad.so"]
    for rel, extra in zip(rels, (("", ""), ("void notInLLVM();", "llvm::notInLLVM();"))):
        (tree / (rel + ".cc")).write_text(PLUGIN % extra)
        lotest.run(["g++", "-shared", "-fPIC", "-o", tree / rel, tree / (rel + ".cc")])
    # what makes them opt's: from a C program they do not load
    plain = lotest.dlopen([tree / p for p in rels])
    assert all("undefined symbol" in a for a in plain), plain
    truth = opt_load(opt, work, [tree / p for p in rels])
    assert truth == ["ok", truth[1]] and truth[1].startswith("error"), truth
    r = lotest.scan(tree)
    lotest.assert_hosted(r, rels, truth, "opt", opt, "_ZN4llvm9notInLLVMEv")
    assert r.rc == 1, r

    # Debian's Polly, from the opt beside it
    lib = "/usr/lib/llvm-14/lib"
    r = lotest.scan(lib)
    f = r.file("LLVMPolly.so")
    truth = opt_load(opt, work, [os.path.join(lib, "LLVMPolly.so")])[0]
    assert f["host"] == opt and f["loads"] is (truth == "ok") is True, (f, truth)

    # a machine without opt: the scan goes on, and the rule's provides stand in
    (work / "noopt.rules").write_text(
        "[host \"opt\"]\n\tprogram = ${cmake:LLVM_OPT:-/nonexistent/*/opt}\n")
    r = lotest.scan(tree, args=["--rules", work / "noopt.rules"])
    assert r.rc == 0, r
    for rel in rels:
        f = r.file(rel)
        assert f["host_rule"] == "opt" and f["host"] is None and f["verdict"] == "ok", f


if __name__ == "__main__":
    lotest.main(globals())
