import pytest
from bank import Account, InsufficientFunds, transfer


def test_deposit_and_withdraw():
    account = Account("ada", 500)
    account.deposit(250)
    account.withdraw(700)
    assert account.balance == 50


def test_transfer_moves_money_from_source_to_target():
    ada, bob = Account("ada", 1000), Account("bob", 200)
    assert transfer(ada, bob, 300) == (700, 500)
    assert (ada.balance, bob.balance) == (700, 500)


def test_transfer_beyond_the_balance_changes_nothing():
    ada, bob = Account("ada", 100), Account("bob", 5000)
    with pytest.raises(InsufficientFunds):
        transfer(ada, bob, 300)
    assert (ada.balance, bob.balance) == (100, 5000)
