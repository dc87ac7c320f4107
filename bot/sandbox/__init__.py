"""Where untrusted code runs: the tiers (tiers.py), the processes they start and kill (procs.py),
and the host state they prepare and clean (state.py). The design: docs/ARCHITECTURE.md."""

# The tiers by name, here so the CLI's parser and the Action's config check them without loading
# the sandbox itself (tiers.py costs ~50 ms to import).
SANDBOXES = ("auto", "bwrap", "landlock", "process", "none")
