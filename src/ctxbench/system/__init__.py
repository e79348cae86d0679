"""ctxbench system: environment checks with advice."""
