"""libtraceevent plugins under the default rules (rules/traceevent.rules).

A plugin of libtraceevent leaves tep_* and trace_seq_* undefined: the
tracer that loads it (trace-cmd, or Debian's perf, which carries its own
libtraceevent and exports what its plugins use) provides them. leftover
knows one by what it needs and judges it from that tracer. Truth: the
tracer itself loading each plugin, dlopen(RTLD_NOW | RTLD_GLOBAL) as
libtraceevent does, inside its own process (lotest.load_inside: its
command line has no way to name one plugin).
linux-perf is installed by the test when missing.
"""
import os
import shutil

import lotest

def test_traceevent_plugins_are_judged_from_the_tracer():
    lotest.need("perf", "linux-perf")
    tracer = shutil.which("trace-cmd") or shutil.which("perf")
    work = lotest.workdir("rules-traceevent")
    tree = work / "tree"
    proto = ("struct tep_handle; struct trace_seq;\n"
             "extern int trace_seq_printf(struct trace_seq *, const char *, ...);\n")
    lotest.cc(tree / "plugin_good.so", proto +
              "int tep_plugin_loader(struct tep_handle *t) { (void)t; return 0; }\n"
              "int show(struct trace_seq *s) { return trace_seq_printf(s, \"x\"); }\n")
    lotest.cc(tree / "plugin_bad.so", proto + "extern int tep_not_in_tracer(void);\n"
              "int tep_plugin_loader(struct tep_handle *t) { (void)t;\n"
              "  return tep_not_in_tracer(); }\n"
              "int show(struct trace_seq *s) { return trace_seq_printf(s, \"x\"); }\n")
    rels = ["plugin_good.so", "plugin_bad.so"]
    # what makes them the tracer's: from a C program they do not load
    plain = lotest.dlopen([tree / p for p in rels])
    assert all("undefined symbol" in a for a in plain), plain
    truth = lotest.load_inside(tracer, [tree / p for p in rels])
    assert truth[0] == "ok" and "tep_not_in_tracer" in truth[1], truth
    r = lotest.scan(tree)
    lotest.assert_hosted(r, rels, truth, "traceevent", tracer, "tep_not_in_tracer")

    # perf's own plugins
    plugins = "/usr/lib/traceevent/plugins"
    r = lotest.scan(plugins)
    files = r.files
    truth = lotest.load_inside(tracer, [os.path.join(plugins, p) for p in files])
    agree = [p for p, t in zip(files, truth) if files[p]["loads"] is (t == "ok")]
    assert len(agree) == len(files) >= 10, (
        "%d/%d agree" % (len(agree), len(files)),
        [(p, files[p]["verdict"], t) for p, t in zip(files, truth) if p not in agree])
    print("%s: %d/%d agree with %s" % (plugins, len(agree), len(files), tracer))

    # a machine without a tracer: the scan goes on, and the rule's provides stand in
    r = lotest.scan(tree, env={"PATH": "/nonexistent"})
    assert r.rc == 0, r
    for rel in rels:
        f = r.file(rel)
        assert f["host_rule"] == "traceevent" and f["host"] is None, f
        assert f["verdict"] == "ok", f


if __name__ == "__main__":
    lotest.main(globals())
