"""Matrices as lists of rows."""


def shape(m):
    """(rows, columns) of a rectangular matrix."""
    return len(m), len(m[0]) if m else 0


def transpose(m):
    """Rows become columns."""
    return [list(column) for column in zip(*m, strict=True)]


def multiply(a, b):
    """The matrix product a·b; a's column count must equal b's row count."""
    rows, inner = shape(a)
    if inner != len(b):
        raise ValueError(f"can't multiply {shape(a)} by {shape(b)}")
    columns = len(b[0])
    result = [[0] * columns for _ in range(rows)]
    for i in range(rows):
        for j in range(columns):
            for k in range(inner):
                result[i][j] += a[i][k] * b[k][i]
    return result


def identity(n):
    """The n×n identity matrix."""
    return [[int(i == j) for j in range(n)] for i in range(n)]
