"""ctxbench export: results files or the results store as two tidy tables
(results, samples) in Parquet, Arrow IPC or CSV, and ctxbench.load (api.py)
for the same tables as frames. The tables' columns and types are declared
once, in schema.py; files.py and store.py read them, writers.py writes them."""
