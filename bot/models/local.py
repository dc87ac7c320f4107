"""`--model local:FILE.gguf`: a GGUF model run in-process by llama.cpp, fully offline.

Needs the `local` extra (llama-cpp-python), imported only when such a model is opened.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from bot.errors import UserError
from bot.models.base import ModelSettings, Reply, request_reply_tokens, request_seed, request_temperature

CONTEXT_TOKENS = 8192  # prompt plus reply; repair prompts carry code and feedback
# A reply may fill at most an eighth of the context (1,024 tokens): in-process on the CPU a model
# writes tens of tokens a second, and a longer reply of a small model is a runaway more often than code.
REPLY_SHARE = 8
SEED = 0  # for calls that name no seed (settings.seed None): a run repeats, while its samples differ


class LocalModel:
    def __init__(self, path: Path, settings: ModelSettings):
        if not path.is_file():
            raise UserError(f"--model local:{path}: no such file")
        try:
            import llama_cpp
        except ImportError:
            raise UserError("--model local:...: needs llama-cpp-python: pip install 'autofix[local]'") from None
        try:
            self.llm: Any = llama_cpp.Llama(model_path=str(path), n_ctx=CONTEXT_TOKENS, seed=SEED, verbose=False)
        except ValueError as exc:  # llama.cpp's word for a file it cannot load
            raise UserError(f"--model local:{path}: cannot load it as a GGUF model: {exc}") from None
        self.settings = settings
        self.lock = threading.Lock()  # one llama.cpp context: parallel eval workers take turns
        self.name = f"local:{path}"
        self.banner = f"model: {path.name} in-process via llama.cpp (offline)"

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        with self.lock:
            try:
                limit = min(request_reply_tokens(self.settings), CONTEXT_TOKENS // REPLY_SHARE)
                out = self.llm.create_chat_completion(messages=messages, max_tokens=limit, **self.sampling())
            except ValueError as exc:  # e.g. the prompt does not fit the context window
                raise UserError(f"{self.name}: {exc}") from None
        usage, choice = out.get("usage") or {}, out["choices"][0]
        return Reply(
            choice["message"].get("content") or "",
            usage.get("prompt_tokens", 0),
            usage.get("completion_tokens", 0),
            cut_at=limit if choice.get("finish_reason") == "length" else None,
        )

    def sampling(self) -> dict[str, Any]:
        """What was asked for; llama.cpp's own defaults hold for the rest."""
        sampling: dict[str, Any] = {}
        temperature = request_temperature(self.settings)
        if temperature is not None:
            sampling["temperature"] = temperature
        seed = request_seed(self.settings)
        if seed is not None:
            sampling["seed"] = seed
        return sampling


def provider(rest: str, settings: ModelSettings) -> LocalModel:
    return LocalModel(Path(rest), settings)
