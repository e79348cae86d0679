"""ctxbench tasks: indirect cost of n switches between two real tasks (analysis, figures)."""
