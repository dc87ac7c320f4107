"""URL slugs from titles."""

import re
import unicodedata


def ascii_only(text):
    """`text` with accents removed and anything else outside ASCII dropped."""
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


def slugify(title, max_length=50):
    """A lowercase slug: words joined by single hyphens, no hyphen at either end, at most
    `max_length` characters, cut at a word boundary where it can be."""
    text = ascii_only(title).lower()
    slug = re.sub(r"[^a-z0-9]+", "-", text).lstrip("-")
    if len(slug) <= max_length:
        return slug
    cut = slug[:max_length]
    if "-" in cut and slug[max_length] != "-":
        cut = cut.rsplit("-", 1)[0]
    return cut.strip("-")


def unique_slug(title, taken):
    """A slug for `title` not in the set `taken`: "-2", "-3", ... appended as needed."""
    base = slugify(title)
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug
