# The results store's tests run against a real PostgreSQL server, which the
# test fixture starts in a temporary directory (tests/postgres_server.py).
TEST_PKGS += postgresql
