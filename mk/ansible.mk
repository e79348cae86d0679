# The Ansible collection's test (tests/test_ansible_collection.py) runs
# ansible-playbook (ansible-core, one of ctxbench's dependencies) against real
# OpenSSH servers on loopback ports, whose hosts get the static x86-64 engine.
TEST_PKGS += openssh-server
TEST_PREREQS += engine-x86_64
