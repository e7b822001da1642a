"""pyimport_probe: the real loader's answer for extension modules, from Python.

The counterpart of dlopen_probe.c for Python extension modules, whose host
is the interpreter: run with that interpreter, it reads NUL-terminated
paths on stdin and, for each, forks a child that loads the file with
ctypes.CDLL(path, os.RTLD_NOW) (RTLD_LOCAL, as the import machinery does)
and reports the loader's error. Same output as dlopen_probe:
    INDEX ok | INDEX error MESSAGE | INDEX signal N | INDEX exit N
usage: python pyimport_probe.py [TIMEOUT_SECONDS] < paths
"""
import ctypes
import os
import sys

# The child's status when the load failed; anything else means a constructor exited.
DLOPEN_FAILED = 111


def probe(path, timeout):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 1)
        os.dup2(null, 2)
        import signal
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(timeout)
        try:
            ctypes.CDLL(path, os.RTLD_NOW)
        except OSError as e:
            os.write(w, str(e).encode("utf-8", "surrogateescape"))
            os._exit(DLOPEN_FAILED)
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 4096)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, st = os.waitpid(pid, 0)
    msg = b"".join(chunks).decode("utf-8", "replace").replace("\n", " ")
    if os.WIFSIGNALED(st):
        return "signal %d" % os.WTERMSIG(st)
    if os.WEXITSTATUS(st) == 0:
        return "ok"
    if os.WEXITSTATUS(st) == DLOPEN_FAILED:
        return "error " + msg
    return "exit %d" % os.WEXITSTATUS(st)


def main():
    timeout = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    data = sys.stdin.buffer.read()
    paths = [p for p in data.split(b"\0") if p]
    for i, p in enumerate(paths):
        print(i, probe(os.fsdecode(p), timeout), flush=True)


if __name__ == "__main__":
    main()
