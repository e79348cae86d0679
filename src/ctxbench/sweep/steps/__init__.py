"""The steps of `ctxbench sweep` (command.py runs them in this order), one
module each, all working on one Sweep (state.py) made once and passed:

1. begin.py       what to measure: the mechanisms, a resumed file's points
                  (resume.py), the grid fitted to the budget;
2. pilot.py       every point in the same rounds, a fitted grid checked by
                  its first round;
3. allocation.py  the rest of the budget to the points it can bring to
                  their goal (goals.py);
4. finish.py      the last analysis, the figures and the summary printed.

measure.py measures rounds for steps 2 and 3 (one engine process per
mechanism), and save.py writes what is measured after each of them.
"""
