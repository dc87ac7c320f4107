"""Temperature conversions between Celsius, Fahrenheit and Kelvin."""

ABSOLUTE_ZERO_C = -273.15


def c_to_f(celsius):
    """Celsius to Fahrenheit."""
    return celsius * 9 / 5 + 32


def f_to_c(fahrenheit):
    """Fahrenheit to Celsius."""
    return (fahrenheit - 32) * 9 / 5


def c_to_k(celsius):
    """Celsius to Kelvin; below absolute zero is an error."""
    if celsius < ABSOLUTE_ZERO_C:
        raise ValueError(f"{celsius} °C is below absolute zero")
    return celsius - ABSOLUTE_ZERO_C


def convert(value, source, target):
    """`value` from scale `source` to scale `target`, each one of "C", "F", "K"."""
    if source == "F":
        value = f_to_c(value)
    elif source == "K":
        value = value + ABSOLUTE_ZERO_C
    if target == "F":
        return c_to_f(value)
    if target == "K":
        return c_to_k(value)
    return value
