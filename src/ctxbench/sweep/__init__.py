"""ctxbench sweep: indirect cost over working-set sizes and strides (plan, analysis, figures)."""
