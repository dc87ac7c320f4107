import pytest
from tictactoe import new_board, play, show, winner


def test_a_move_fills_one_cell():
    board = new_board()
    play(board, 0, 0, "X")
    assert show(board) == "X| | \n | | \n | | "


def test_taken_cell():
    board = new_board()
    play(board, 1, 1, "X")
    with pytest.raises(ValueError):
        play(board, 1, 1, "O")


def test_winner():
    board = new_board()
    for row, column, mark in [(0, 0, "X"), (1, 0, "O"), (1, 1, "X"), (2, 0, "O"), (2, 2, "X")]:
        play(board, row, column, mark)
    assert winner(board) == "X"


def test_no_winner_yet():
    board = new_board()
    play(board, 0, 0, "X")
    assert winner(board) is None
