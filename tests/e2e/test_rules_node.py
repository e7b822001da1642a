"""Node.js addons under the default rules (rules/node.rules).

A Node-API addon leaves napi_* undefined: the node that require()s it
provides them. leftover knows such an addon by what it needs, under the
name node-gyp gives it (build/Release/NAME.node), and judges it from node.
Truth: node loading each addon itself (process.dlopen with RTLD_NOW, as
leftover judges), in a child. Debian's nodejs is installed by the test
when missing. The addons declare the few Node-API functions they call
themselves, so no headers are needed: what matters is the symbols.
"""
import shutil

import lotest

NAPI = ("typedef struct napi_env__ *napi_env; typedef struct napi_value__ *napi_value;\n"
        "extern int napi_create_int32(napi_env, int, napi_value *);\n"
        "extern int napi_set_named_property(napi_env, napi_value, const char *, napi_value);\n")


def test_node_addons_are_judged_from_node():
    node = lotest.need("node", "nodejs")
    tree = lotest.workdir("rules-node") / "tree"
    release = tree / "build" / "Release"
    # one that uses what node has, and one that also needs a function it has not
    lotest.cc(release / "answer.node", NAPI +
              "napi_value napi_register_module_v1(napi_env env, napi_value exports) {\n"
              "  napi_value v; napi_create_int32(env, 42, &v);\n"
              "  napi_set_named_property(env, exports, \"answer\", v); return exports; }\n")
    lotest.cc(release / "bad.node", NAPI + "extern int napi_not_in_node(napi_env);\n"
              "napi_value napi_register_module_v1(napi_env env, napi_value exports) {\n"
              "  napi_not_in_node(env); return exports; }\n")
    rels = ["build/Release/answer.node", "build/Release/bad.node"]

    # what makes them node's: from a C program they do not load
    plain = lotest.dlopen([tree / p for p in rels])
    assert all("undefined symbol: napi_" in a for a in plain), plain

    truth = lotest.host_load(node, [tree / p for p in rels])
    assert truth[0] == "ok" and "napi_not_in_node" in truth[1], truth
    r = lotest.scan(tree)
    lotest.assert_hosted(r, rels, truth, "node", shutil.which("node"), "napi_not_in_node")
    assert r.file(rels[0])["verdict"] == "ok" and r.rc == 1, r

    # a machine without node: the scan goes on, and the rule's provides stand in for it
    lotest.assert_provides_stand_in(tree, rels, "node")


if __name__ == "__main__":
    lotest.main(globals())
