"""Models behind one tiny protocol (base.py), opened by name (registry.py)."""
