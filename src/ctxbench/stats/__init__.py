"""Statistics: summaries, resampling intervals, derived quantities and rank tests. No I/O."""
