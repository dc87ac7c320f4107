"""The shipped easy set (examples/easy/): every spec loads, a reference solution passes its
checks in the real sandbox, and a function that returns None fails at least one, so a model's
score on the set means something."""

from pathlib import Path

import pytest

from bot import spec as specs
from bot.judge.validate import Validator, open_test_sandbox

EASY = Path(__file__).resolve().parents[2] / "examples" / "easy"
SOLUTIONS = {
    "reverse_words": "def reverse_words(text):\n    return ' '.join(reversed(text.split()))\n",
    "is_palindrome": (
        "def is_palindrome(text):\n    kept = [c.lower() for c in text if c.isalnum()]\n    return kept == kept[::-1]\n"
    ),
    "count_vowels": "def count_vowels(text):\n    return sum(c in 'aeiouAEIOU' for c in text)\n",
    "capitalize_words": (
        "def capitalize_words(text):\n    return ' '.join(w[:1].upper() + w[1:] for w in text.split(' '))\n"
    ),
    "run_length": (
        "from itertools import groupby\n\n\ndef run_length(text):\n"
        "    return ''.join(f'{c}{len(list(g))}' for c, g in groupby(text))\n"
    ),
    "chunks": "def chunks(items, size):\n    return [items[i : i + size] for i in range(0, len(items), size)]\n",
    "flatten": (
        "def flatten(items):\n    out = []\n    for item in items:\n"
        "        out.extend(flatten(item) if isinstance(item, list) else [item])\n    return out\n"
    ),
    "second_largest": (
        "def second_largest(numbers):\n    distinct = sorted(set(numbers))\n"
        "    return distinct[-2] if len(distinct) > 1 else None\n"
    ),
    "rotate": (
        "def rotate(items, k):\n    if not items:\n        return []\n    k %= len(items)\n"
        "    return items[-k:] + items[:-k] if k else list(items)\n"
    ),
    "pairwise_sums": "def pairwise_sums(items):\n    return [a + b for a, b in zip(items, items[1:])]\n",
    "group_by_length": (
        "def group_by_length(words):\n    groups = {}\n    for w in words:\n"
        "        groups.setdefault(len(w), []).append(w)\n    return groups\n"
    ),
    "merge_sorted": (
        "def merge_sorted(a, b):\n    out, i, j = [], 0, 0\n    while i < len(a) and j < len(b):\n"
        "        if a[i] <= b[j]:\n            out.append(a[i])\n            i += 1\n"
        "        else:\n            out.append(b[j])\n            j += 1\n"
        "    return out + a[i:] + b[j:]\n"
    ),
    "digit_sum": "def digit_sum(n):\n    return sum(int(d) for d in str(abs(n)))\n",
    "is_prime": (
        "def is_prime(n):\n    if n < 2:\n        return False\n"
        "    return all(n % d for d in range(2, int(n ** 0.5) + 1))\n"
    ),
    "gcd": "def gcd(a, b):\n    a, b = abs(a), abs(b)\n    while b:\n        a, b = b, a % b\n    return a\n",
    "fizzbuzz": (
        "def fizzbuzz(n):\n    return ['FizzBuzz' if i % 15 == 0 else 'Fizz' if i % 3 == 0 else 'Buzz' if i % 5 == 0"
        " else str(i) for i in range(1, n + 1)]\n"
    ),
    "to_roman": (
        "def to_roman(n):\n    out = ''\n    for value, letters in [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'),"
        " (100, 'C'), (90, 'XC'), (50, 'L'), (40, 'XL'), (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]:\n"
        "        while n >= value:\n            out += letters\n            n -= value\n    return out\n"
    ),
    "clamp": "def clamp(value, low, high):\n    return max(low, min(value, high))\n",
    "mean_median": (
        "def mean_median(numbers):\n    s = sorted(numbers)\n    mid = len(s) // 2\n"
        "    median = s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2\n    return sum(s) / len(s), median\n"
    ),
    "parse_duration": (
        "import re\n\n\ndef parse_duration(text):\n    units = {'h': 3600, 'm': 60, 's': 1}\n"
        "    return sum(int(n) * units[u] for n, u in re.findall(r'(\\d+)([hms])', text))\n"
    ),
}


@pytest.fixture(scope="module")
def sandbox():
    return open_test_sandbox("auto", "test", lambda text: None)


def test_the_easy_set_has_twenty_specs_with_two_to_four_checks_each():
    names = sorted(path.stem for path in EASY.glob("*.yml"))
    assert names == sorted(SOLUTIONS)
    for name in names:
        spec = specs.load(EASY / f"{name}.yml")
        assert spec.target == f"{name}.py" and 2 <= len(spec.tests.code.strip().splitlines()) <= 4, name


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_a_reference_solution_passes_and_a_function_returning_none_fails(name, sandbox, tmp_path):
    spec = specs.load(EASY / f"{name}.yml", tmp_path)
    validator = Validator(spec, sandbox)
    passed = validator.check(SOLUTIONS[name])
    assert passed.passed, passed.feedback
    lazy = validator.check(f"def {name}(*args):\n    return None\n")
    assert not lazy.passed and lazy.failing
