"""A least-recently-used cache."""

from collections import OrderedDict


class LRUCache:
    """At most `capacity` entries; adding one more evicts the entry used least recently, where
    both reading (get) and writing (put) an entry count as using it."""

    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.entries = OrderedDict()

    def get(self, key, default=None):
        """The value stored under `key`, or `default`."""
        if key not in self.entries:
            return default
        return self.entries[key]

    def put(self, key, value):
        """Store `value` under `key`, evicting the least recently used entry when full."""
        if key in self.entries:
            self.entries.move_to_end(key)
        self.entries[key] = value
        if len(self.entries) > self.capacity:
            self.entries.popitem(last=False)

    def __len__(self):
        return len(self.entries)

    def keys(self):
        """The keys, least recently used first."""
        return list(self.entries)
