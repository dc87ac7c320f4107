"""Greedy word wrapping."""


def wrap(text, width):
    """The words of `text` in lines of at most `width` characters, words separated by one space;
    a word longer than `width` gets a line of its own."""
    lines = []
    line = ""
    for word in text.split():
        if not line:
            line = word
        elif len(line) + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def fill(text, width):
    """`text` wrapped to `width`, as one string of lines."""
    return "\n".join(wrap(text, width))


def indent(text, width, prefix="    "):
    """`text` wrapped so that each line, `prefix` included, fits in `width`."""
    return "\n".join(prefix + line for line in wrap(text, width - len(prefix)))
