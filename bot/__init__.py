"""autofix: a model writes code, the repository's own tests decide."""
