"""The GitHub Action: the event that started the job, the repository's config, and what autofix
leaves behind on GitHub (pull requests, comments, the job's outputs and summary)."""
