"""bench/cpu_busy.py reads gpu_full.sh's samples: busy CPUs per window, the
runners' CPU and the daemon's own and reaped runners' CPU."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_busy_cpus_runners_and_the_daemon(tmp_path):
    hz = os.sysconf("SC_CLK_TCK")
    lines = []
    # two CPUs over 20 s: cpu0 busy throughout, cpu1 half; a runner and the daemon
    for i, t in enumerate((1000, 1010, 1020)):
        lines.append(str(t))
        lines.append(f"cpu0 {i * 10 * hz} 0 0 0 0 0 0 0")
        lines.append(f"cpu1 {i * 5 * hz} 0 0 {i * 5 * hz} 0 0 0 0")
        lines.append(f"proc 42 {i * 8 * hz} 0 {i * hz} 0")
        lines.append(f"daemon {i * 2 * hz} 0 {i * 30 * hz} 0")
    p = tmp_path / "cpustat.txt"
    p.write_text("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "cpu_busy.py"),
                          str(p), "--cpus", "0-1"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "| all (20 s) | 1.5 |" in out.stdout, out.stdout
    assert "own threads 16, reaped children 2" in out.stdout, out.stdout
    assert "daemon: own threads 4 CPU-s; runners it reaped during the run " \
           "(with their children) 60" in out.stdout, out.stdout
