"""Red CI repair: a pull request's failing tests, reproduced, fixed with edits and proved by the whole suite."""
