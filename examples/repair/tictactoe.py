"""Noughts and crosses on a 3×3 board."""

SIZE = 3


def new_board():
    """An empty board: SIZE rows of SIZE cells, each " "."""
    return [[" "] * SIZE] * SIZE


def play(board, row, column, mark):
    """Put `mark` ("X" or "O") in an empty cell."""
    if board[row][column] != " ":
        raise ValueError(f"cell {row},{column} is taken")
    board[row][column] = mark


def lines(board):
    """Every row, column and both diagonals, as lists of cells."""
    rows = [list(row) for row in board]
    columns = [[board[r][c] for r in range(SIZE)] for c in range(SIZE)]
    diagonals = [[board[i][i] for i in range(SIZE)], [board[i][SIZE - 1 - i] for i in range(SIZE)]]
    return rows + columns + diagonals


def winner(board):
    """ "X" or "O" when that mark fills a line, else None."""
    for line in lines(board):
        if line[0] != " " and line.count(line[0]) == SIZE:
            return line[0]
    return None


def show(board):
    """The board as three lines of text."""
    return "\n".join("|".join(row) for row in board)
