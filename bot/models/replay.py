"""`--model replay:FILE.yml`: recorded replies played back in order, for demos and tests."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.errors import UserError
from bot.models.base import ModelSettings, Reply


class ReplayModel:
    """Plays recorded replies from a YAML file (`replies:` list), for demos and tests."""

    def __init__(self, path: Path):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UserError(f"{path}: cannot read replay file: {exc.strerror}") from None
        except yaml.YAMLError as exc:
            raise UserError(f"{path}: invalid YAML: {exc}".splitlines()[0]) from None
        replies = data.get("replies") if isinstance(data, dict) else None
        if not isinstance(replies, list) or not replies:
            raise UserError(f"{path}: a replay file needs a non-empty `replies:` list")
        self.replies = [as_reply(item, path, i) for i, item in enumerate(replies)]
        self.name = f"replay:{path}"
        self.banner = f"model: replaying {replies_count(len(self.replies))} from {path} (no model is called)"
        self.played = 0

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        if self.played >= len(self.replies):
            raise UserError(
                f"{self.name}: {'every one of the ' if len(self.replies) > 1 else 'the '}"
                f"{replies_count(len(self.replies))} was used; add replies to the file, or allow fewer attempts"
            )
        self.played += 1
        return self.replies[self.played - 1]


def as_reply(item, path: Path, index: int) -> Reply:
    if isinstance(item, str):
        return Reply(item)
    if isinstance(item, dict) and isinstance(item.get("text"), str):
        return Reply(item["text"], int(item.get("input_tokens", 0)), int(item.get("output_tokens", 0)))
    raise UserError(f"{path}: replies[{index}]: must be a string or a mapping with `text`")


def replies_count(count: int) -> str:
    return f"{count} recorded repl{'y' if count == 1 else 'ies'}"


def provider(rest: str, settings: ModelSettings) -> ReplayModel:
    return ReplayModel(Path(rest))
