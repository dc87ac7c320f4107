"""Retry delays with exponential backoff."""


def delay(attempt, base=0.5, cap=30.0):
    """Seconds to wait before retry number `attempt` (0 for the first): `base` doubled each
    attempt, never more than `cap`."""
    if attempt < 0:
        raise ValueError("attempt can't be negative")
    return max(base * 2**attempt, cap)


def schedule(attempts, base=0.5, cap=30.0):
    """The delays of the first `attempts` retries."""
    return [delay(n, base, cap) for n in range(attempts)]


def jittered(attempt, rng, base=0.5, cap=30.0):
    """A random delay between 0 and `delay(attempt)` ("full jitter"), from `rng`."""
    return rng.uniform(0, delay(attempt, base, cap))


def total_wait(attempts, base=0.5, cap=30.0):
    """The longest all `attempts` retries can wait together."""
    return sum(schedule(attempts, base, cap))
