"""The wheel: a staged `cmake --install` prefix as a .whl, and its platform tag.

The tag is read from the program itself: leftover's own `explain --verbose`
lists the libraries it needs and each symbol it imports with the version
its loader binds (`memcpy@GLIBC_2.14 => /lib/.../libc.so.6`). When it needs
nothing but glibc's own libraries, the tag is manylinux_2_X for the newest
GLIBC_2.X among its own imports (PEP 600: it runs on any glibc that new);
when it needs another shared library (a build against the distribution's
dynamic libgit2), it cannot claim manylinux and says linux_<arch>, which pip
installs on this machine and on machines like it only.
"""
import base64
import hashlib
import os
import platform
import re
import subprocess
import zipfile
from pathlib import Path

# the libraries of glibc itself: the only ones a manylinux program may need
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                   "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libresolv.so.2"}
# zip entries get one fixed time, so the same tree makes the same wheel
EPOCH = (1980, 1, 1, 0, 0, 0)


def program_needs(program):
    """(libraries it names, newest (major, minor) of its own GLIBC_ imports or None)."""
    p = subprocess.run([str(program), "explain", "--verbose", str(program)], capture_output=True,
                       text=True, errors="surrogateescape")
    if p.returncode not in (0, 1) or "\nsymbols:\n" not in p.stdout:
        raise RuntimeError("%s explain could not read itself (exit %d): %s"
                           % (program, p.returncode, p.stderr.strip()))
    head, symbols = p.stdout.split("\nsymbols:\n", 1)
    # two spaces: the program's own needs and imports; deeper lines and
    # "(from LIB)" are its libraries'
    libs = re.findall(r"^  (\S+) => ", head.split("\nlibraries:\n", 1)[-1], re.M)
    versions = [(int(a), int(b)) for a, b in
                re.findall(r"^  [^ (]+@GLIBC_(\d+)\.(\d+)(?:\.\d+)? => ", symbols, re.M)]
    return libs, max(versions, default=None)


def platform_tag(program):
    """manylinux_2_X_<arch> when the program needs only glibc, else linux_<arch>."""
    arch = platform.machine()
    libs, newest = program_needs(program)
    if newest and set(libs) <= GLIBC_LIBRARIES:
        return "manylinux_%d_%d_%s" % (newest[0], newest[1], arch)
    return "linux_" + arch


def _entry(path, data, executable=False):
    info = zipfile.ZipInfo(path, EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    return info, data


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (path, digest, len(data))


def staged_entries(stage, version, python_dir):
    """(path in the wheel, bytes, executable) of each file `cmake --install` staged.

    bin/ goes to the scripts, share/ to the data under the prefix, the
    plugin module to the top; the plugin's own .dist-info, written for a
    prefix without pip, is replaced by the wheel's."""
    data = "leftover-%s.data" % version
    out = []
    for f in sorted(p for p in Path(stage).rglob("*") if p.is_file()):
        rel = f.relative_to(stage).as_posix()
        if rel.startswith("bin/"):
            out.append(("%s/scripts/%s" % (data, rel[4:]), f.read_bytes(), True))
        elif rel.startswith("share/"):
            out.append(("%s/data/%s" % (data, rel), f.read_bytes(), False))
        elif rel.startswith(python_dir + "/"):
            name = rel[len(python_dir) + 1:]
            if ".dist-info/" not in name:
                out.append((name, f.read_bytes(), False))
        else:
            raise RuntimeError("no place in the wheel for %s" % rel)
    return out


def metadata(version, tag):
    """The .dist-info files: METADATA, WHEEL, entry_points.txt, top_level.txt."""
    return {
        "METADATA": "Metadata-Version: 2.1\nName: leftover\nVersion: %s\n"
                    "Summary: find stale artifacts in build trees\n"
                    "Home-page: https://github.com/leftover-dev/leftover\n"
                    "Requires-Python: >=3.7\n" % version,
        "WHEEL": "Wheel-Version: 1.0\nGenerator: leftover_build\nRoot-Is-Purelib: false\n"
                 "Tag: py3-none-%s\n" % tag,
        # pytest loads the plugin of every environment it runs in by this
        "entry_points.txt": "[pytest11]\nleftover = pytest_leftover\n",
        "top_level.txt": "pytest_leftover\n",
    }


def write(out_dir, stage, version, python_dir):
    """Write the wheel of the staged prefix into out_dir; return its file name."""
    files = staged_entries(stage, version, python_dir)
    program = Path(stage) / "bin" / "leftover"
    tag = platform_tag(program)
    info = "leftover-%s.dist-info" % version
    files += [("%s/%s" % (info, k), v.encode(), False) for k, v in metadata(version, tag).items()]
    name = "leftover-%s-py3-none-%s.whl" % (version, tag)
    tmp = Path(out_dir) / (name + ".part")
    record = ""
    with zipfile.ZipFile(tmp, "w") as z:
        for path, data, executable in files:
            z.writestr(*_entry(path, data, executable))
            record += _record_line(path, data)
        record += "%s/RECORD,,\n" % info
        z.writestr(*_entry("%s/RECORD" % info, record.encode()))
    os.replace(tmp, Path(out_dir) / name)
    return name
