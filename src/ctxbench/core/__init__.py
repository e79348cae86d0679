"""Core of the front end: driving the engine, the results model (schema, reading, judging), verification and environment checks."""
