# ring / report / compare: chromium renders the report headless in the tests.
APT_PKGS += chromium
