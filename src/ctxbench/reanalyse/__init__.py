"""ctxbench reanalyse: a results file analysed again from its samples, written as a new file."""
