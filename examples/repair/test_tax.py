from tax import effective_rate, marginal_rate, tax


def test_first_brackets():
    assert tax(5_000) == 0
    assert tax(25_000) == 1_500  # 10% of 15,000


def test_income_across_brackets():
    assert tax(50_000) == 5_000  # 10% of 30,000 + 20% of 10,000
    assert tax(150_000) == 35_000  # 3,000 + 12,000 + 20,000


def test_rates():
    assert marginal_rate(50_000) == 0.20
    assert effective_rate(50_000) == 0.10
    assert effective_rate(0) == 0.0
