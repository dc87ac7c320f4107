"""Accounts, and money moved between them."""


class InsufficientFunds(Exception):
    """A withdrawal larger than the balance."""


class Account:
    """An account holding a balance in whole cents."""

    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance

    def deposit(self, cents):
        """Add `cents` (positive) to the balance."""
        if cents <= 0:
            raise ValueError("a deposit must be positive")
        self.balance += cents

    def withdraw(self, cents):
        """Take `cents` (positive) from the balance, never below zero."""
        if cents <= 0:
            raise ValueError("a withdrawal must be positive")
        if cents > self.balance:
            raise InsufficientFunds(f"{self.owner} has {self.balance}, asked for {cents}")
        self.balance -= cents


def move(payer, payee, cents):
    """Take `cents` from `payer` and give them to `payee`; nothing changes when it can't."""
    payer.withdraw(cents)
    payee.deposit(cents)


def transfer(source, target, cents):
    """Send `cents` from account `source` to account `target`; returns both new balances."""
    move(target, source, cents)
    return source.balance, target.balance
