"""The Debian packages (debian/, `make deb`): opscreen and opscreen-demolib
build with dpkg-buildpackage, lintian reports no error and no warning, and
each holds what it should (`dpkg-deb -c`): the production package the
daemon, opscreenctl, the runner, kernels/' library under /usr/lib, the
units, the sysusers entry, the conffile and the man pages, and no demo
library and no web/ (embedded in opscreend); the demo package the demo
library and nothing of the daemon. build/deb is reused while no file that
goes into the packages is newer than it."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from e2e_harness import ROOT, installed_host_kernels

pytestmark = pytest.mark.skipif(
    shutil.which("dpkg-buildpackage") is None,
    reason="dpkg-buildpackage is missing (Debian packages dpkg-dev, debhelper, "
           "fakeroot, lintian; `make deps` installs them): packages not built")

OUT = os.path.join(ROOT, "build", "deb")
# what goes into the packages; a newer file rebuilds them
SOURCES = ["Makefile", "README.md", "conf", "daemon", "db", "debian", "kernels",
           "man", "probes", "systemd", "tests/demolib", "tools", "web"]


# DEB_BUILD_PROFILES=pkg.opscreen.cuda: the device library too (needs nvcc)
PROFILES = os.environ.get("DEB_BUILD_PROFILES", "").strip()
CUDA = "pkg.opscreen.cuda" in PROFILES.split()


def built_profiles():
    try:
        with open(os.path.join(OUT, "profiles")) as f:
            return f.read().strip()
    except OSError:
        return None


def version():
    with open(os.path.join(ROOT, "debian", "changelog")) as f:
        first = f.readline()
    return first.split("(", 1)[1].split(")", 1)[0]


def newest_source():
    r = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard", "--",
                        *SOURCES], cwd=ROOT, capture_output=True, timeout=60)
    if r.returncode != 0:
        return float("inf")     # not a git checkout: always rebuild
    paths = [os.path.join(ROOT, p.decode()) for p in r.stdout.split(b"\0") if p]
    return max(os.path.getmtime(p) for p in paths if os.path.exists(p))


@pytest.fixture(scope="module")
def debs():
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True,
                          text=True, check=True).stdout.strip()
    v = version()
    want = {"opscreen": os.path.join(OUT, f"opscreen_{v}_{arch}.deb"),
            "opscreen-demolib": os.path.join(OUT, f"opscreen-demolib_{v}_all.deb"),
            "changes": os.path.join(OUT, f"opscreen_{v}_{arch}.changes")}
    fresh = all(os.path.exists(p) for p in want.values()) and \
        min(os.path.getmtime(p) for p in want.values()) > newest_source() and \
        built_profiles() == PROFILES
    if not fresh:
        r = subprocess.run(["make", "-s", "deb"], cwd=ROOT, capture_output=True,
                           text=True, timeout=1500)
        assert r.returncode == 0, (r.stdout + r.stderr)[-6000:]
    for p in want.values():
        assert os.path.exists(p), (p, os.listdir(OUT))
    return want


def contents(deb):
    """The paths a package installs, as /path (directories end in /)."""
    r = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True,
                       check=True)
    out = []
    for line in r.stdout.splitlines():
        path = line.split(None, 5)[5].split(" -> ")[0]
        out.append(path[1:] if path.startswith("./") else path)
    return [p for p in out if p != "/"]


def control(deb, name):
    return subprocess.run(["dpkg-deb", "--info", deb, name], capture_output=True,
                          text=True, check=True).stdout


def field(deb, name):
    return subprocess.run(["dpkg-deb", "--field", deb, name], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_lintian_reports_no_errors_and_no_warnings(debs):
    if shutil.which("lintian") is None:
        pytest.skip("lintian is missing (`make deps` installs it)")
    r = subprocess.run(["lintian", "--no-tag-display-limit", debs["changes"]],
                       capture_output=True, text=True, timeout=600)
    tags = [l for l in r.stdout.splitlines() if l.startswith(("E:", "W:"))]
    assert not tags, r.stdout
    assert r.returncode == 0, r.stdout + r.stderr


def test_opscreen_holds_the_daemon_and_no_demo_library(debs):
    paths = contents(debs["opscreen"])
    files = {p for p in paths if not p.endswith("/")}
    for want in ["/usr/sbin/opscreend", "/usr/bin/opscreenctl",
                 "/usr/share/opscreen/probes/opscreen_runner/__main__.py",
                 "/usr/share/opscreen/probes/opscreen_runner/kernels.py",
                 "/usr/lib/opscreen/libopscreen_kernels_host.so",
                 "/usr/lib/sysusers.d/opscreen.conf",
                 "/etc/opscreen/opscreen.conf",
                 "/usr/share/man/man8/opscreend.8.gz",
                 "/usr/share/man/man1/opscreenctl.1.gz",
                 "/usr/share/man/man5/opscreen.conf.5.gz",
                 "/usr/share/doc/opscreen/copyright"]:
        assert want in files, (want, sorted(files))
    # the device library only under the profile (the default build needs no nvcc)
    assert ("/usr/lib/opscreen/libopscreen_kernels.so" in files) == CUDA
    runner = {os.path.basename(p) for p in files
              if p.startswith("/usr/share/opscreen/probes/opscreen_runner/")}
    shipped = {f for f in os.listdir(os.path.join(ROOT, "probes", "opscreen_runner"))
               if f.endswith(".py")}
    assert runner == shipped
    for u in ["opscreend.service", "opscreen-nightly.service",
              "opscreen-nightly.timer"]:
        assert (f"/lib/systemd/system/{u}" in files or
                f"/usr/lib/systemd/system/{u}" in files), u
    # architecture-dependent files under /usr/lib only
    assert not [p for p in files if p.startswith("/usr/share/") and ".so" in p]
    # no demo library, no copy of web/
    assert not [p for p in paths if "demolib" in p], paths
    assert not [p for p in paths if "/web/" in p or p.endswith(("/web", "/web/"))]
    web = set(os.listdir(os.path.join(ROOT, "web")))
    assert not [p for p in files if os.path.basename(p) in web]
    assert "/etc/opscreen/opscreen.conf" in control(debs["opscreen"],
                                                    "conffiles").split()


def test_opscreen_configuration_and_maintainer_scripts(debs):
    deb = debs["opscreen"]
    conf = subprocess.run(f"dpkg-deb --fsys-tarfile {deb} | "
                          "tar -xO ./etc/opscreen/opscreen.conf", shell=True,
                          capture_output=True, text=True, check=True).stdout
    lines = conf.splitlines()
    assert "runner_path = /usr/share/opscreen/probes" in lines
    assert "library = flag_gems" in lines
    assert "database = /var/lib/opscreen/opscreen.db" in lines
    assert "token_file = /etc/opscreen/token" in lines
    assert not [l for l in lines if "demolib" in l and not l.startswith("#")]
    depends = field(deb, "Depends")
    assert "python3" in [d.split()[0] for d in depends.split(", ")], depends
    assert field(debs["opscreen-demolib"], "Architecture") == "all"
    assert field(deb, "Architecture") not in ("", "all")
    postinst = control(deb, "postinst")
    assert "systemd-sysusers ${DPKG_ROOT:+--root=\"$DPKG_ROOT\"} opscreen.conf" in postinst
    # the daemon is enabled, restarted on upgrade when running, never started
    # on install; the timer is enabled and started
    assert "deb-systemd-helper enable 'opscreend.service'" in postinst
    assert "deb-systemd-invoke try-restart 'opscreend.service'" in postinst
    assert "deb-systemd-helper enable 'opscreen-nightly.timer'" in postinst
    assert "deb-systemd-invoke $_dh_action 'opscreen-nightly.timer'" in postinst
    assert not [l for l in postinst.splitlines()
                if "deb-systemd-invoke" in l and "opscreend.service" in l
                and "try-restart" not in l]
    # the token: created when absent, mode 0600, owned by opscreen
    assert "chown opscreen:opscreen /etc/opscreen/token.new" in postinst
    assert "umask 077" in postinst
    assert "deb-systemd-invoke stop opscreend.service" in control(deb, "prerm")


def test_installed_runner_and_daemon_work_from_the_package(debs, tmp_path):
    root = tmp_path / "root"
    subprocess.run(["dpkg-deb", "-x", debs["opscreen"], str(root)], check=True)
    # the runner finds kernels/' host library under /usr/lib/opscreen
    assert (installed_host_kernels(root / "usr/share/opscreen/probes", tmp_path) ==
            str(root / "usr/lib/opscreen/libopscreen_kernels_host.so"))
    # the packaged configuration passes the daemon's check (the database in a
    # directory that exists: systemd creates /var/lib/opscreen), with a
    # token of its own (the host's /etc/opscreen/token is not the test's)
    tok = tmp_path / "token"
    tok.write_text("t" * 32 + "\n")
    tok.chmod(0o600)
    r = subprocess.run([str(root / "usr/sbin/opscreend"), "-n", "-c",
                        str(root / "etc/opscreen/opscreen.conf"),
                        "-o", f"daemon.database={tmp_path}/opscreen.db",
                        "-o", f"daemon.token_file={tok}"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(root / "usr/bin/opscreenctl"), "--version"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and version() in r.stdout, r.stdout + r.stderr


def test_demolib_package_holds_the_demo_library_only(debs, tmp_path):
    deb = debs["opscreen-demolib"]
    files = {p for p in contents(deb) if not p.endswith("/")}
    lib = "/usr/share/opscreen/demolib/opscreen_demolib/"
    shipped = {lib + f for f in os.listdir(os.path.join(ROOT, "tests/demolib/opscreen_demolib"))
               if f.endswith(".py")}
    doc = {p for p in files if p.startswith("/usr/share/doc/opscreen-demolib/")}
    assert files == shipped | doc, sorted(files)
    assert "/usr/share/doc/opscreen-demolib/README.Debian" in doc
    assert "opscreen" in [d.split()[0] for d in field(deb, "Depends").split(", ")]
    # the README's configuration names the installed paths
    root = tmp_path / "root"
    subprocess.run(["dpkg-deb", "-x", deb, str(root)], check=True)
    readme = (root / "usr/share/doc/opscreen-demolib/README.Debian").read_text()
    lines = [l.strip() for l in readme.splitlines()]
    assert "runner_path = /usr/share/opscreen/probes:/usr/share/opscreen/demolib" in lines
    # its one-off command passes the daemon's check on the packaged
    # configuration (paths moved under the extracted tree)
    subprocess.run(["dpkg-deb", "-x", debs["opscreen"], str(root)], check=True)
    cmd = " ".join(readme.split("    opscreend ", 1)[1].split("\n\n")[0].split("\\\n"))
    args = [re.sub(r"(^|[=:])/(etc|usr)/", rf"\g<1>{root}/\2/",
                   re.sub(r"(^|[=:])/tmp/", rf"\g<1>{tmp_path}/", a))
            for a in cmd.split()]
    assert "runner.library=demolib" in args, args
    # a token of its own: the host's /etc/opscreen/token is not the test's
    tok = tmp_path / "token"
    tok.write_text("t" * 32 + "\n")
    tok.chmod(0o600)
    args += ["-o", f"daemon.token_file={tok}"]
    r = subprocess.run([str(root / "usr/sbin/opscreend"), "-n", *args],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (args, r.stderr)
    # and serves: the packaged runner imports the packaged demo library
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # (a later -o overrides an earlier one)
    log = open(tmp_path / "log", "wb")
    proc = subprocess.Popen([str(root / "usr/sbin/opscreend"), *args,
                             "-o", f"daemon.port={port}",
                             "-o", f"runner.python={sys.executable}",
                             "-o", "daemon.screen_on_start=false"],
                            cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline, fp = time.time() + 90, None
        while time.time() < deadline and not fp:
            time.sleep(0.5)
            assert proc.poll() is None, (tmp_path / "log").read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz",
                                            timeout=5) as f:
                    fp = json.load(f)["devices"][0].get("fingerprint")
            except (OSError, ValueError):
                pass
        assert fp and fp["library"] == "demolib", (tmp_path / "log").read_text()
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
    env = dict(os.environ, PYTHONPATH=str(root / "usr/share/opscreen/demolib"))
    r = subprocess.run([sys.executable, "-c", "import opscreen_demolib; "
                        "print(opscreen_demolib.__file__)"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(root / lib.lstrip("/") / "__init__.py")

