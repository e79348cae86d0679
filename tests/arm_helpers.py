"""Shared by the ARM tests: the cross-built engines, qemu-user, and a short
suite run under emulation (timings meaningless, structure checked)."""
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

ARCHES = {"aarch64": "qemu-aarch64", "armv7": "qemu-arm"}
ELF_MACHINE = {"aarch64": 183, "armv7": 40}  # EM_AARCH64, EM_ARM

# Short under emulation: a handful of samples, no warm-up.
QUICK_ARGS = ["--quick", "--groups", "2", "--iterations", "3", "--min-sample-us", "200", "--warmup-ms", "0"]


def arm_engine(arch: str) -> Path:
    exe = ROOT / "build" / arch / "ctxbench-engine"
    if not exe.exists():
        pytest.fail(f"{exe} not built: run 'make engine-{arch}' (make test does it)")
    return exe


def qemu(arch: str) -> str:
    q = shutil.which(ARCHES[arch])
    if not q:
        pytest.fail(f"{ARCHES[arch]} not found: install qemu-user (make deps does it)")
    return q


def run_under_qemu(arch: str, exe: Path, *args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([qemu(arch), str(exe), *args], capture_output=True, text=True, timeout=timeout)
