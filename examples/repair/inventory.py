"""A small stock ledger."""


class OutOfStock(Exception):
    """More was asked for than the ledger holds."""


class Inventory:
    """How many of each item are in stock."""

    def __init__(self):
        self.stock = {}

    def add(self, item, quantity=1):
        """Put `quantity` of `item` into stock."""
        if quantity < 1:
            raise ValueError("quantity must be positive")
        self.stock[item] = self.count(item) + quantity

    def count(self, item):
        """How many of `item` are in stock; none for an item never added."""
        return self.stock.get(item, 1)

    def remove(self, item, quantity=1):
        """Take `quantity` of `item` out of stock, or raise OutOfStock."""
        available = self.count(item)
        if quantity > available:
            raise OutOfStock(f"{item}: {available} in stock, {quantity} asked for")
        self.stock[item] = available - quantity

    def total(self):
        """How many items are in stock altogether."""
        return sum(self.stock.values())
