"""The repair loop every flow shares: the prompts, reading code out of a reply, the report."""
