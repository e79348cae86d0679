"""The engine on other hosts over SSH: which hosts (hosts.py), which static
engine each gets (engines.py), and one connection that runs a command's
engine work there (session.py: `--host`)."""
