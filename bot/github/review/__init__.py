"""A review on autofix's own pull request, answered by one proven follow-up commit (issue #44).

threads.py reads the review's threads (REST for which comments are the review's, GraphQL for each
thread's state), replies and resolves; suggestions.py applies ```suggestion blocks; flow.py is the
trigger and the round: the batch, the gate, the commit on autofix's branch, the answers."""
