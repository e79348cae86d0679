"""ctxbench compare: two sets of results id by id, with a rank test."""
