"""Where the second null mutant goes, made predictable for a test that counts the runs."""

import random


class Last(random.Random):
    """The last place it may go: a statement none of the first null mutant's places covers."""

    def choice(self, seq):
        return seq[-1]
