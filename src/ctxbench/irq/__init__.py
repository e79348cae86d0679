"""ctxbench irq: indirect cost of timer interrupts at controlled rates (analysis, figures)."""
