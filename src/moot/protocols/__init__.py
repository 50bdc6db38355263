"""The debate protocols of the seeds, each a small state machine of rounds over shared pieces:

- `evaluate`: scored multi-judge debate over an artifact (seeds 000, 001, 003);
- `decide`: adversarial debate over options between stance judges (seed 002);
- `challenge`: a position defended against parallel challengers (seed 004).
"""
