"""The verdict: a candidate judged by the repository's tests in the sandbox, and the guards around it."""
