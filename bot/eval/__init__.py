"""`autofix eval`: one-shot, repair and resampling compared on a task set."""
