"""ctxbench noise: what the system takes from a pinned CPU (figure)."""
