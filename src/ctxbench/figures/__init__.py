"""Figures, one module per kind of result (ring, run, ...). Every figure
shows the spread (95% CI) and names the machine it was measured on."""
