"""JNI libraries under the default rules (rules/jni.rules).

A JNI library exports JNI_OnLoad or Java_* functions and takes JNI_* and
JVM_* from libjvm.so, which it names without a path the loader could find
(the JDK's lib/*.so have RPATH $ORIGIN; libjvm.so is in lib/server/): the
`java` launcher has loaded libjvm.so with RTLD_GLOBAL before any class
runs. leftover knows such a library by its exports, its needs and its
DT_NEEDED libjvm.so, and judges it from java with libjvm.so preloaded.
Truth: System.load(path) in a real java child, one per library, with
LD_BIND_NOW=1 (the JVM dlopen()s with RTLD_LAZY; leftover judges as
RTLD_NOW would bind, as PERL_DL_NONLAZY makes perl do).
"""
import concurrent.futures
import os
import shutil

import lotest

LOADER = """public class Load {
    public static void main(String[] a) {
        try { System.load(a[0]); System.out.print("ok"); }
        catch (Throwable t) { System.out.print("error " + t.getMessage()); }
    }
}
"""


def java_load(java, classes, paths):
    """What a real JVM says when it System.load()s each path, one JVM per path."""
    def one(p):
        r = lotest.run([java, "-Xshare:auto", "-cp", classes, "Load", p], check=False,
                       timeout=60, env={"LD_BIND_NOW": "1"})
        return r.stdout.strip() or "error exit %d: %s" % (r.returncode, r.stderr[-300:])
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        return list(ex.map(one, [str(p) for p in paths]))


def test_jni_libraries_are_judged_from_the_jvm():
    lotest.need("javac", "openjdk-17-jdk-headless")
    java = shutil.which("java")
    jdk = os.path.dirname(os.path.dirname(os.path.realpath(java)))
    work = lotest.workdir("rules-jni")
    classes = work / "classes"
    classes.mkdir()
    (classes / "Load.java").write_text(LOADER)
    lotest.run(["javac", "-d", classes, classes / "Load.java"])

    # one that uses what libjvm has, one that needs a JVM_ function it has not;
    # both need libjvm.so and have no path to it, as the JDK's own do not
    tree = work / "tree"
    jvm = ["-L", os.path.join(jdk, "lib", "server"), "-Wl,--no-as-needed", "-ljvm"]
    lotest.cc(tree / "libgood.so", "extern int JNI_GetCreatedJavaVMs(void **, int, int *);\n"
              "int Java_Hello_count(void) { int n = 0; void *vm;\n"
              "  JNI_GetCreatedJavaVMs(&vm, 1, &n); return n; }\n", *jvm)
    lotest.cc(tree / "libbad.so", "extern int JVM_NotInThisJvm(void);\n"
              "int Java_Hello_count(void) { return JVM_NotInThisJvm(); }\n", *jvm)
    rels = ["libgood.so", "libbad.so"]
    # what makes them the JVM's: from a C program libjvm.so is not found
    plain = lotest.dlopen([tree / p for p in rels])
    assert all("libjvm.so" in a for a in plain), plain
    truth = java_load(java, classes, [tree / p for p in rels])
    assert truth[0] == "ok" and "JVM_NotInThisJvm" in truth[1], truth
    r = lotest.scan(tree)
    lotest.assert_hosted(r, rels, truth, "java", java, "JVM_NotInThisJvm")
    assert r.rc == 1, r

    # the JDK's own libraries: each as the JVM loads it
    lib = os.path.join(jdk, "lib")
    r = lotest.scan(lib)
    files = {p: f for p, f in r.files.items() if f["verdict"] != "skipped"}
    truth = java_load(java, classes, [os.path.join(lib, p) for p in files])
    agree = [p for p, t in zip(files, truth) if files[p]["loads"] is (t == "ok")]
    assert len(agree) == len(files) >= 30, (
        "%d/%d agree" % (len(agree), len(files)),
        [(p, files[p]["verdict"], t) for p, t in zip(files, truth) if p not in agree])
    assert not any(x["library"] == "libjvm.so" for p in files
                   for x in r.reasons(p, "missing-library")), r
    print("JDK %s: %d/%d agree with System.load" % (jdk, len(agree), len(files)))

    # a machine without java on PATH: the scan goes on, the rule's provides
    # stand in, and libjvm.so, which java would have loaded, is not missing
    lotest.assert_provides_stand_in(tree, rels, "java")
    # ... but a JDK's own libraries still have their java beside them
    r = lotest.scan(lib, env={"PATH": "/usr/sbin:/sbin"})
    f = r.file("libjava.so")
    assert f["verdict"] == "ok" and f["host"] == os.path.join(jdk, "bin", "java"), f


if __name__ == "__main__":
    lotest.main(globals())
