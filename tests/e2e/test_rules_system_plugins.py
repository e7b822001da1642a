"""Plugins of system programs under the default rules (rules/system-plugins.rules).

PackageKit's backends take pk_backend_* from packagekitd, tc's modules
iproute2's helpers from tc, glibc's libthread_db the ps_* functions from
gdb: for a plain dlopen all three are broken, in their program they load.
leftover knows each by what it needs and judges it from that program.
Truth: the program itself loading each file inside its own process
(lotest.load_inside; none of them has a command to load one plugin). The
programs' packages are installed by the test when missing.
"""
import os
import shutil

import lotest

# host rule, program, package, a function it exports, where its own plugins are
HOSTS = [
    ("packagekitd", "/usr/libexec/packagekitd", "packagekit", "pk_backend_job_finished",
     "/usr/lib/x86_64-linux-gnu/packagekit-backend"),
    ("tc", "tc", "iproute2", "get_tc_classid", "/usr/lib/x86_64-linux-gnu/tc"),
    ("gdb", "gdb", "gdb", "ps_pglobal_lookup", None),
]


def test_system_plugins_are_judged_from_their_program():
    work = lotest.workdir("rules-system-plugins")
    for rule, program, package, symbol, plugins in HOSTS:
        program = os.path.realpath(lotest.need(program, package))
        tree = work / rule
        # one that uses what the program has, one that also needs what it has not
        lotest.cc(tree / "good.so", "extern int %s();\nint use(void) { return %s(); }\n"
                  % (symbol, symbol))
        lotest.cc(tree / "bad.so", "extern int %s(); extern int %s_not_in_host();\n"
                  "int use(void) { return %s() + %s_not_in_host(); }\n"
                  % (symbol, symbol, symbol, symbol))
        rels = ["good.so", "bad.so"]
        plain = lotest.dlopen([tree / p for p in rels])
        assert all("undefined symbol" in a for a in plain), (rule, plain)
        truth = lotest.load_inside(program, [tree / p for p in rels])
        assert truth[0] == "ok" and symbol + "_not_in_host" in truth[1], (rule, truth)
        r = lotest.scan(tree)
        lotest.assert_hosted(r, rels, truth, rule, program, symbol + "_not_in_host")

        # a machine without the program: the scan goes on, the rule's provides stand in
        (work / (rule + "-missing.rules")).write_text(
            "[host \"%s\"]\n\tprogram = ${cmake:X:-/nonexistent/*/%s}\n" % (rule, rule))
        lotest.assert_provides_stand_in(tree, rels, rule,
                                        args=["--rules", work / (rule + "-missing.rules")], env={})

        # the program's own plugins (glibc's libthread_db: a copy, its directory is big)
        if plugins is None:
            plugins = work / (rule + "-own")
            plugins.mkdir()
            shutil.copy("/usr/lib/x86_64-linux-gnu/libthread_db.so.1", plugins)
        r = lotest.scan(plugins)
        files = {p: f for p, f in r.files.items() if f["verdict"] != "skipped"}
        truth = lotest.load_inside(program, [os.path.join(plugins, p) for p in files])
        agree = [p for p, t in zip(files, truth) if files[p]["loads"] is (t == "ok")]
        assert len(agree) == len(files) >= 1, (
            rule, [(p, files[p]["verdict"], t) for p, t in zip(files, truth) if p not in agree])
        # (a backend that needs nothing of packagekitd, test_nop, is any C program's)
        ruled = sum(f["host_rule"] == rule for f in files.values())
        assert ruled >= 1, (rule, files)
        print("%s: %d/%d of %s agree, %d judged from it" % (rule, len(agree), len(files),
                                                           plugins, ruled))

    # libthread_db of another machine is never gdb's: its own machine's
    # program is, with what the rule says gdb provides
    lotest.need_arch("i386-linux-gnu")
    foreign = work / "i386"
    foreign.mkdir()
    shutil.copy("/usr/lib/i386-linux-gnu/libthread_db.so.1", foreign)
    f = lotest.scan(foreign).file("libthread_db.so.1")
    assert f["verdict"] == "ok" and f["arch"] == "i386-linux-gnu" and f["host"] is None, f


if __name__ == "__main__":
    lotest.main(globals())
