"""ctxbench ring: cost per hand-off in a ring of N parties (figure)."""
