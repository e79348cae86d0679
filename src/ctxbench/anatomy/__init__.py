"""ctxbench anatomy: where the time of one switch goes (ladder of configurations, waterfall)."""
