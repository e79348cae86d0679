# ring / report / compare: chromium renders the report headless in the tests.
TEST_PKGS += chromium
