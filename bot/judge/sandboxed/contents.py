"""What a compared value holds, read without asking the value.

A value returned by code under repair decides its own `==`: one that agrees with the expectation
of the test it is compared in (it may count, or key on what the test's file holds) passes that
test, and a twin planted after it, expecting something else, fails as planted. So in each test
autofix wants to see pass (those that failed last, pytest_plugin.watch_comparisons), every
`assert a == b` also hands both sides to `watch`, in the test's own run, before `==` runs (which
could change them): what each holds is read through the built-in types' own methods (a list's items as the list
stores them, an int subclass's value), never through anything the value's class defines. When
both hold built-in data and the two differ, the recorder notes it, and a test that passed that
way passed through a value whose `==` claims what it doesn't hold: the report is tampered with.

Values that hold anything else (a Decimal, a class of the repository's own that subclasses no
built-in type) can't be read without asking them, and are let be. autofix writes this into the
pytest plugin.
"""

NONE_TYPE = type(None)
MOST_READ = 100000  # objects read per comparison, at most: a huge value is let be
SHOWN = 160  # characters of each side in the tampered line


def content_reader(
    _type=type, _list=list, _tuple=tuple, _dict=dict, _set=set, _frozenset=frozenset, _int=int, _float=float,
    _complex=complex, _str=str, _bytes=bytes, _bool=bool, _none=NONE_TYPE, _slice=slice, _subclass=issubclass,
    _hash=hash, _error=Exception, _object=object, _most=MOST_READ,
):  # fmt: skip
    """held(value): an exact built-in copy of what value holds, or `missing` (returned too).
    Made `alone` (seal.py): it looks up no global."""
    plain = (_int, _float, _complex, _str, _bytes, _bool, _none)
    # Each built-in type's own reading of an instance of it or of a subclass: exact values, from
    # the object's own storage. A class is the object's type, never what its `__class__` says.
    whole = _slice(None)
    scalars = [(_int, _int.__pos__), (_float, _float.__pos__), (_complex, _complex.__pos__), (_str, _str.__str__)]
    scalars.append((_bytes, lambda value: _bytes.__getitem__(value, whole)))
    iterate = [(_list, _list.__iter__), (_tuple, _tuple.__iter__), (_set, _set.__iter__)]
    iterate.append((_frozenset, _frozenset.__iter__))
    items, missing, budget = _dict.items, _object(), [0]

    def hashable(value):
        try:
            _hash(value)
        except _error:
            return False
        return True

    def read(value, depth):
        budget[0] += 1
        if depth > 50 or budget[0] > _most:
            return missing
        kind = _type(value)
        if kind in plain:
            return value
        for base, exact in scalars:
            if _subclass(kind, base):
                return exact(value)
        if _subclass(kind, _dict):
            pairs = {}
            for key, inner in _list(items(value)):
                key, inner = read(key, depth + 1), read(inner, depth + 1)
                if key is missing or inner is missing or not hashable(key):
                    return missing
                pairs[key] = inner
            return pairs
        for base, each in iterate:
            if _subclass(kind, base):
                found = []
                for inner in each(value):
                    inner = read(inner, depth + 1)
                    if inner is missing or (base in (_set, _frozenset) and not hashable(inner)):
                        return missing
                    found.append(inner)
                if base is _list:
                    return found
                return _tuple(found) if base is _tuple else _set(found) if base is _set else _frozenset(found)
        return missing

    def held(value):
        budget[0] = 0
        return read(value, 0)

    return held, missing


def content_watch(send, held, missing, _repr=repr, _error=Exception, _shown=SHOWN):
    """watch(left, right), which a watched test calls with both sides of each `assert a == b`
    before their `==`:
    when both hold built-in data and what they hold differs, `send` gets a line saying so. It
    never raises, and returns nothing: the test's own `==` decides the test. Made `alone`."""

    def watch(left, right):
        try:
            mine, theirs = held(left), held(right)
            if mine is missing or theirs is missing or mine == theirs:
                return
            send(("contents", _repr(mine)[:_shown] + " and " + _repr(theirs)[:_shown]))
        except _error:  # a comparison of what the two hold never fails the test
            return

    return watch
