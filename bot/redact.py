"""Every secret autofix knows is masked in whatever it prints or writes: the exact values, their
base64 forms, pieces of them spelled out with separators, and anything shaped like a token, a
private key or a cloud credential file.

A model that saw a key (or guessed one was there) may print it in disguise: split by dashes or
newlines, or as the base64 of git's `x-access-token:TOKEN` credentials. Masking by fragment covers
the first, the encoded forms the second, and the shapes cover keys autofix was never told about:
other steps of a job leave credential files (a service account's JSON, `~/.aws/credentials`) that a
candidate may read and quote in its failure.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterator, Mapping

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.I)
MIN_LENGTH = 6  # shorter values would mask ordinary words
MASK = "***"
GIT_USER = "x-access-token:"  # git's basic credentials are base64("x-access-token:" + token)

# Keys by shape, known or not: GitHub's tokens and OpenAI-style keys (sk-..., sk-proj-...). The
# look-behinds sit after the literal prefix, which lets the regex engine skip ahead to it.
TOKEN_SHAPE = re.compile(
    r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}"
    r"|sk-(?<![A-Za-z0-9_-]sk-)[A-Za-z0-9_-]{20,}"  # not the tail of a word: "task-list-..." is no key
)
# Private keys in PEM (and PGP armour), whole or cut: a BEGIN line and the base64 lines after it,
# or, when the head was cut off, the base64 lines before an END line. Lines break as text does or as
# JSON and repr escape it (`\n`, `\\n`). Each line break is one newline with the blanks after it,
# so no run of blanks can be split two ways (no backtracking blow-up).
B64_LINE = r"[A-Za-z0-9+/=]++"  # possessive: a line that is not one is given up at once
PEM_HEADER = r"[A-Za-z-]+: [^\s\\]+"  # Proc-Type: 4,ENCRYPTED; DEK-Info: AES-128-CBC,...
LINE_BREAK = r"[ \t]*(?:(?:\r?\n|\\+[nr])[ \t]*)+"
PEM_LABEL = r"[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
PRIVATE_KEY = re.compile(
    rf"-----BEGIN {PEM_LABEL}(?:{LINE_BREAK}(?:{PEM_HEADER}|{B64_LINE}))*(?:(?:{LINE_BREAK})?-----END {PEM_LABEL})?"
    rf"|(?<![A-Za-z0-9+/=])(?:{B64_LINE}{LINE_BREAK})+-----END {PEM_LABEL}"
)
# The value after a credential's name, as JSON, YAML, INI, a connection string or the environment
# write it: a service account's `private_key_id`, OAuth's `client_secret` and `refresh_token`,
# AWS's secret key and session token, Azure's account keys. The name and its quotes stay. The regex
# runs only on text that holds one of the names: an alternation tried at every character costs
# 40 ms on 200 kB, a substring search next to nothing.
CREDENTIAL_NAMES = (
    "private_key_id", "private_key", "client_secret", "refresh_token", "secret_access_key", "secretaccesskey",
    "session_token", "sessiontoken", "account_key", "accountkey", "shared_access_key", "sharedaccesskey",
)  # fmt: skip
QUOTE = r"""(?:\\*["'])?"""  # none, or a quote as JSON or repr escape it
KEYED_CREDENTIAL = re.compile(
    rf"((?<![A-Za-z0-9])(?:{'|'.join(CREDENTIAL_NAMES)}){QUOTE}\s*[:=]\s*{QUOTE})[^\s\"'\\,;}}]+", re.I
)
# Cloud credentials by shape: AWS access key ids and Google API keys (the literal first lets the
# regex engine skip ahead to it), and service accounts' addresses.
CLOUD_KEY = re.compile(r"A(?:KIA|SIA|Iza)(?<![A-Z0-9]A...)(?:(?<=AIza)[0-9A-Za-z_-]{35}|[A-Z0-9]{16}(?![A-Z0-9]))")
SERVICE_ACCOUNT = "gserviceaccount.com"
SERVICE_ADDRESS = re.compile(r"(?<![A-Za-z0-9._-])[A-Za-z0-9._-]+@[A-Za-z0-9-]+\.iam\.gserviceaccount\.com")
# The value of an Authorization header, as HTTP, git config, JSON or Python write it; the scheme stays.
AUTH_HEADER = re.compile(r"""(authorization["']?\s*[:=]\s*["']?(?:basic|bearer|token)\s+)[^\s"'\\,;]+""", re.I)

# Fragments: a run of MIN_FRAGMENT or more characters of a secret, each pair at most one separator
# apart ("abcd-efgh", "abcd\nefgh", or JSON's escaped "abcd\\nefgh"). Only the secret's letter-and-
# digit runs count, so its punctuation ("sk-", "_") never joins ordinary words into a match, and
# only pieces that mix letters and digits, so the word in "sk-planted-4f0c..." stays a word.
MIN_FRAGMENT = 8
ALNUM_RUN = re.compile(r"[A-Za-z0-9]+")
SEPARATOR_CHARS = " \t\r\n._:/,-"
ESCAPES = (b"\\n", b"\\r", b"\\t")  # newlines and tabs as JSON writes them
SEPARATOR = rf"(?:[{re.escape(SEPARATOR_CHARS)}]|\\[nrt])"
SEPARATORS = re.compile(SEPARATOR)
DOUBLE_SEPARATORS = re.compile(f"((?:{SEPARATOR}){{2,}})")  # captured: re.split keeps them
# Every fragment holds a probe taken at this stride: MIN_FRAGMENT >= PROBE + PROBE_STRIDE - 1.
PROBE, PROBE_STRIDE = 5, 4


class Redactor:
    def __init__(self, values=()):
        self.values: set[str] = set()  # masked wherever they occur: the secrets and their encodings
        self.runs: set[str] = set()  # the secrets' runs whose fragments are masked too
        for value in values:
            self.add(value)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] = os.environ) -> Redactor:
        return cls(value for name, value in environ.items() if SECRET_NAME.search(name))

    def add(self, value: str | None) -> None:
        if value and len(value) >= MIN_LENGTH:
            self.values.update(encodings(value))
            self.runs.update(run for run in ALNUM_RUN.findall(value) if len(run) >= MIN_FRAGMENT)

    def __call__(self, text: str) -> str:
        for value in sorted(self.values, key=len, reverse=True):
            text = text.replace(value, MASK)
        if self.runs:
            text = self.mask_fragments(text)
        text = TOKEN_SHAPE.sub(MASK, text)
        if "PRIVATE KEY" in text:
            text = PRIVATE_KEY.sub(MASK, text)
        lowered = text.lower()
        if any(name in lowered for name in CREDENTIAL_NAMES):
            text = KEYED_CREDENTIAL.sub(lambda keyed: keyed[1] + MASK, text)
        text = CLOUD_KEY.sub(MASK, text)
        if SERVICE_ACCOUNT in text:
            text = SERVICE_ADDRESS.sub(MASK, text)
        return AUTH_HEADER.sub(lambda header: header[1] + MASK, text)

    def mask_fragments(self, text: str) -> str:
        # Pieces are looked for with every separator dropped, which is cheap; where one occurs,
        # only its stretches without a double separator are masked.
        squeezed = without_any_separator(text)
        found = {piece for run in self.runs for piece in fragments(squeezed, run)}
        for piece in sorted(found, key=len, reverse=True):
            text = spelled_out(piece).sub(mask_stretches, text)
        return text


def encodings(value: str) -> set[str]:
    """The value and its base64 forms, alone and as git's credentials, padded or not."""
    forms = {value}
    for plain in (value, GIT_USER + value):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(plain.encode()).decode()
            forms |= {encoded, encoded.rstrip("=")}
    return forms


def fragments(squeezed: str, run: str) -> Iterator[str]:
    """The longest pieces of `run`, MIN_FRAGMENT characters or more, that occur in `squeezed`."""
    for start in range(0, len(run) - PROBE + 1, PROBE_STRIDE):
        at = squeezed.find(run[start : start + PROBE])
        while at != -1:
            first, last = widen(squeezed, at, run, start)
            if is_fragment(run[first:last]):
                yield run[first:last]
            at = squeezed.find(run[start : start + PROBE], at + 1)


def widen(squeezed: str, at: int, run: str, start: int) -> tuple[int, int]:
    """The span of `run` around the probe at `start` that `squeezed` matches around `at`."""
    before = 0
    while before < min(start, at) and squeezed[at - before - 1] == run[start - before - 1]:
        before += 1
    after = PROBE
    while start + after < len(run) and at + after < len(squeezed) and squeezed[at + after] == run[start + after]:
        after += 1
    return start - before, start + after


def is_fragment(characters: str) -> bool:
    return len(characters) >= MIN_FRAGMENT and not characters.isalpha() and not characters.isdigit()


def mask_stretches(spelled: re.Match[str]) -> str:
    """A piece spelled out with separators, masked where it is a fragment between double separators."""
    parts = DOUBLE_SEPARATORS.split(spelled[0])  # stretch, separators, stretch, ...
    return "".join(
        MASK if i % 2 == 0 and is_fragment(SEPARATORS.sub("", part)) else part for i, part in enumerate(parts)
    )


def without_any_separator(text: str) -> str:
    # As UTF-8 bytes: bytes.translate deletes at C speed, while str.translate takes a slow path
    # once the text holds a single non-ASCII character (15 ms for 200 kB). The separators are
    # ASCII, and no ASCII byte occurs inside another character's UTF-8 form.
    data = text.encode("utf-8", "surrogatepass")
    for escape in ESCAPES:
        data = data.replace(escape, b"")
    return data.translate(None, SEPARATOR_CHARS.encode()).decode("utf-8", "surrogatepass")


def spelled_out(piece: str) -> re.Pattern[str]:
    return re.compile(f"{SEPARATOR}*".join(piece))
