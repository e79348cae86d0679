"""The memory a run will lock is asked for before measuring (issue 22, kind
7: a 4 GiB ring or sweep footprint under `ulimit -v` gave a traceback or a
kill): the limit met is named in one line, exit 2, nothing measured or
written."""
import subprocess

import pytest

from conftest import ctxbench_cmd

from ctxbench.core import memory
from ctxbench.core.errors import UserError

GIB = 1 << 30


def test_each_limit_is_named():
    needs = [memory.Need(4 * GIB, 4 * GIB, "a ring of 4 parties x 1.00 GiB"), memory.Need(GIB, GIB, "small")]
    for kw, said in (({"available": 2 * GIB}, "2.00 GiB is available (MemAvailable)"),
                     ({"cgroup": GIB}, "1.00 GiB is left under this cgroup's memory.max"),
                     ({"as_limit": 3 * GIB}, "ulimit -v allows 3.00 GiB")):
        with pytest.raises(UserError) as e:
            memory.check(needs, "ring", "lower --footprint", **kw)
        assert e.value.code == 2 and "a ring of 4 parties x 1.00 GiB needs at least 4.00 GiB" in str(e.value) \
            and said in str(e.value) and "\n" not in str(e.value), str(e.value)
    memory.check(needs, "ring", "", available=4 * GIB, as_limit=4 * GIB, cgroup=None)  # fits exactly


def test_address_space_is_per_process():
    """Processes each map their own: four of 1 GiB fit a 1.5 GiB ulimit -v."""
    memory.check([memory.Need(4 * GIB, GIB, "process ring")], "ring", "", as_limit=GIB * 3 // 2)


def test_limits_read_from_the_kernel_files(tmp_path):
    (tmp_path / "meminfo").write_text("MemTotal:  100 kB\nMemAvailable:   2048 kB\n")
    assert memory.mem_available(str(tmp_path / "meminfo")) == 2048 * 1024
    assert memory.mem_available(str(tmp_path / "missing")) is None
    (tmp_path / "self").write_text("0::/a/b\n")
    cg = tmp_path / "cg" / "a" / "b"
    cg.mkdir(parents=True)
    (cg / "memory.max").write_text("1000\n")
    (cg / "memory.current").write_text("400\n")
    assert memory.cgroup_room(str(tmp_path / "cg"), str(tmp_path / "self")) == 600
    (cg / "memory.max").write_text("max\n")
    assert memory.cgroup_room(str(tmp_path / "cg"), str(tmp_path / "self")) is None


@pytest.mark.parametrize("argv", [["ring", "--parties", "2", "--footprint", "1G", "--kind", "thread", "--quick"],
                                  ["ring", "--parties", "1024", "--footprint", "1G", "--quick"],
                                  ["sweep", "--sizes", "1G", "--strides", "0,64", "--mechanism",
                                   "kernel/thread/pipe"]])
def test_command_refuses_before_measuring(tmp_path, argv):
    out = tmp_path / "r.json"
    cmd = " ".join(ctxbench_cmd() + [f"'{a}'" for a in argv + ["-o", str(out)]])
    p = subprocess.run(["bash", "-c", f"ulimit -v 1500000; exec {cmd}"], capture_output=True, text=True, timeout=60)
    err = [line for line in p.stderr.splitlines() if not line.startswith("note: ")]  # sweep states its plan
    assert p.returncode == 2 and len(err) == 1 and err[0].startswith(f"ctxbench: {argv[0]}: "), p.stderr
    assert "needs at least" in p.stderr and "Traceback" not in p.stderr
    assert f"{argv[0]} [" not in p.stderr  # no progress: nothing was measured
    assert not out.exists()
