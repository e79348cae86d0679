"""ctxbench report: one HTML (and Markdown) page from results files."""
