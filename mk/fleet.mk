# ctxbench fleet copies a static engine to each host (mk/static.mk, mk/arm.mk);
# its tests start real OpenSSH servers on loopback ports (tests/ssh_servers.py).
TEST_PKGS += openssh-server
TEST_PREREQS += engine-x86_64
