"""ctxbench run: the default suite of direct costs, its table and figure."""
