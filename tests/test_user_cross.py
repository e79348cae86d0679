"""The aarch64 and armv7 switch files and their tests, cross-compiled
statically by mk/user.mk (make user-cross-tests), run under qemu-user."""
import shutil
import subprocess

import pytest

from conftest import ROOT

pytestmark = pytest.mark.cross

CROSS = ROOT / "build" / "cross-user"
QEMU = {"aarch64": "qemu-aarch64", "armv7": "qemu-arm"}
TESTS = ["test_user_regs", "test_user_volume", "test_user_green"]


@pytest.mark.parametrize("arch", sorted(QEMU))
@pytest.mark.parametrize("name", TESTS)
def test_user_switch_under_qemu(arch, name):
    exe = CROSS / arch / name
    assert exe.exists(), f"{exe} not built (make user-cross-tests)"
    qemu = shutil.which(QEMU[arch])
    assert qemu, f"{QEMU[arch]} missing (apt-get install qemu-user)"
    p = subprocess.run([qemu, str(exe)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1].startswith("ok:"), p.stdout
