"""Letter grades for exam scores."""

# The lowest score of each letter, best first.
CUTOFFS = [(90, "A"), (80, "B"), (70, "C"), (60, "D")]


def letter(score):
    """The letter for a score from 0 to 100: A from 90, B from 80, C from 70, D from 60, else F."""
    if not 0 <= score <= 100:
        raise ValueError(f"score out of range: {score}")
    for lowest, grade in CUTOFFS:
        if score > lowest:
            return grade
    return "F"


def report(scores):
    """Each student's letter, from a mapping of names to scores."""
    return {name: letter(score) for name, score in scores.items()}


def distribution(scores):
    """How many students got each letter, every letter present."""
    counts = {grade: 0 for _, grade in CUTOFFS}
    counts["F"] = 0
    for grade in report(scores).values():
        counts[grade] += 1
    return counts
