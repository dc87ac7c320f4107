from lru import LRUCache


def test_put_and_get():
    cache = LRUCache(2)
    cache.put("a", 1)
    assert (cache.get("a"), cache.get("b", 0), len(cache)) == (1, 0, 1)


def test_evicts_the_oldest_write():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert cache.keys() == ["b", "c"]


def test_reading_an_entry_keeps_it():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert cache.get("a") == 1, "a was read after b was written, so b should have been evicted"
    assert cache.keys() == ["c", "a"]
