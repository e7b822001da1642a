"""GCC plugins under the default rules (rules/gcc.rules).

A GCC plugin exports plugin_is_GPL_compatible and takes GCC's internals
from the compiler proper that loads it: cc1 for C, cc1plus for C++ (a
plugin of the C++ front end, GCC's own libcp1plugin, needs cp_* functions
only cc1plus has). leftover knows one by that export (and those needs) and
judges it from that compiler. Truth: `gcc -fplugin=PATH -c x.c` (g++ -x
c++ for cc1plus's), one compiler run per plugin; GCC loads plugins with
RTLD_NOW, and says "cannot load plugin" when the load fails (a plugin that
loads and then refuses to start, as libcc1plugin without GDB's `fd`
argument, counts as loaded). gcc-12-plugin-dev is installed by the test.
"""
import os
import subprocess

import lotest

PLUGIN = """#include "gcc-plugin.h"
int plugin_is_GPL_compatible;
%s
int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version) {
  (void)version; %s
  register_callback(info->base_name, PLUGIN_FINISH, NULL, NULL); return 0; }
"""


def gcc_load(work, paths, cxx=False):
    """What gcc (g++ with cxx) says when it loads each plugin: "ok" or "error MSG"."""
    src = work / "x.c"
    src.write_text("int x;\n")
    out = []
    for p in paths:
        cmd = ["g++", "-x", "c++"] if cxx else ["gcc"]
        r = lotest.run(cmd + ["-fplugin=%s" % p, "-c", src, "-o", "/dev/null"], check=False,
                       timeout=60)
        out.append("error " + r.stderr.strip() if "cannot load plugin" in r.stderr else "ok")
    return out


def test_gcc_plugins_are_judged_from_the_compiler():
    lotest.need("g++", "g++")
    plugin_dir = subprocess.run(["gcc", "-print-file-name=plugin"], capture_output=True,
                                text=True, check=True).stdout.strip()
    lotest.need(os.path.join(plugin_dir, "include", "gcc-plugin.h"), "gcc-12-plugin-dev")
    cc1 = subprocess.run(["gcc", "-print-prog-name=cc1"], capture_output=True, text=True,
                         check=True).stdout.strip()
    work = lotest.workdir("rules-gcc")
    tree = work / "tree"
    tree.mkdir()
    rels = ["good.so", "bad.so"]
    for rel, extra in zip(rels, (("", ""), ('extern "C" void not_in_cc1(void);', "not_in_cc1();"))):
        (tree / (rel + ".cc")).write_text(PLUGIN % extra)
        lotest.run(["g++", "-shared", "-fPIC", "-fno-rtti", "-I",
                    os.path.join(plugin_dir, "include"), "-o", tree / rel, tree / (rel + ".cc")])
    # what makes them cc1's: from a C program they do not load
    plain = lotest.dlopen([tree / p for p in rels])
    assert all("undefined symbol" in a for a in plain), plain
    truth = gcc_load(work, [tree / p for p in rels])
    assert truth[0] == "ok" and "not_in_cc1" in truth[1], truth
    r = lotest.scan(tree)
    lotest.assert_hosted(r, rels, truth, "cc1", cc1, "not_in_cc1")
    assert r.rc == 1, r

    # GCC's own plugins: libcc1plugin is cc1's, libcp1plugin cc1plus's (cc1 cannot load it)
    r = lotest.scan(plugin_dir)
    hosts = {"libcc1plugin.so.0.0.0": "cc1", "libcp1plugin.so.0.0.0": "cc1plus"}
    for rel, rule in hosts.items():
        f = r.file(rel)
        path = os.path.join(plugin_dir, rel)
        truth = gcc_load(work, [path], cxx=rule == "cc1plus")[0]
        assert f["host_rule"] == rule and f["loads"] is (truth == "ok"), (f, truth)
        assert os.path.basename(f["host"]) == rule, f
    assert "ovl_op_mapping" in gcc_load(work, [os.path.join(plugin_dir, "libcp1plugin.so")])[0]

    # without a compiler: the scan goes on, every symbol taken as the compiler's
    (work / "nocc1.rules").write_text(
        "[host \"cc1\"]\n\tprogram = ${cmake:GCC_CC1:-/nonexistent/*/cc1}\n")
    r = lotest.scan(tree, args=["--rules", work / "nocc1.rules"])
    assert r.rc == 0, r
    for rel in rels:
        f = r.file(rel)
        assert f["host_rule"] == "cc1" and f["host"] is None and f["verdict"] == "ok", f


if __name__ == "__main__":
    lotest.main(globals())
