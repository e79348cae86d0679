"""ctxbench userbench: user-level switches side by side."""
