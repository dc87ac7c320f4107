"""Where untrusted code runs: the tiers (tiers.py), the processes they start and kill (procs.py),
and the host state they prepare and clean (state.py). The design: docs/ARCHITECTURE.md."""
