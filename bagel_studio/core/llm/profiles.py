"""Model profiles: which endpoint and model to ask, and every setting that changes what is measured.

A profile names the environment variable that holds the API key, never the key itself: the key is
read from the environment at the moment of a request and is kept out of the project, the
preferences, logs and error messages (``redact``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

CHAT = "chat"
COMPLETIONS = "completions"
API_STYLES = (CHAT, COMPLETIONS)
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
LETTER_GRAMMAR = "root ::= [ABCD]"

# The settings that change what a model answers: part of the profile's hash, of every stored
# answer's key and of the report. The endpoint, key variable, timeout and concurrency are not.
MEASURED = ("model", "api_style", "grammar", "temperature", "seed", "max_tokens")


class ProfileError(ValueError):
    """A profile that cannot be used, with a message meant for the curator."""


@dataclass(frozen=True)
class Profile:
    label: str
    model: str
    base_url: str = DEFAULT_BASE_URL
    api_key_env: str = DEFAULT_KEY_ENV
    api_style: str = CHAT
    grammar: bool = False  # llama.cpp's ``grammar``: exactly one letter A-D
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 16
    timeout: float = 60.0
    concurrency: int = 8
    # The model's context window in tokens, for a server that does not say it (llama.cpp's
    # /props and vLLM's listing do): the judge's and the generator's evidence is cut to fit.
    context_tokens: int | None = None

    def __post_init__(self) -> None:
        if not self.label.strip():
            raise ProfileError("a profile needs a label")
        if not self.model.strip():
            raise ProfileError("a profile needs a model id")
        if self.api_style not in API_STYLES:
            raise ProfileError(f"API style must be one of {', '.join(API_STYLES)}")
        if not self.base_url.startswith(("http://", "https://")):
            raise ProfileError(f"base URL must start with http:// or https://: {self.base_url}")
        if self.concurrency < 1 or self.max_tokens < 1 or self.timeout <= 0:
            raise ProfileError("concurrency, max tokens and timeout must be positive")
        if self.context_tokens is not None and self.context_tokens < 1:
            raise ProfileError("context tokens must be positive")

    def measured(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in MEASURED}

    def settings_hash(self) -> str:
        """A hash of the measured settings: answers are kept per label and this hash."""
        text = json.dumps(self.measured(), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Profile:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def with_changes(self, **changes: Any) -> Profile:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) or None

    def key_state(self) -> str:
        """``set``, ``unset`` or why the key cannot be sent (``unusable: a tab at character
        12 of 40``): what the desk and the CLI show instead of the key."""
        key = self.api_key()
        if not key:
            return "unset"
        problem = key_problem(key)
        return f"unusable: {problem}" if problem else "set"

    def key_refusal(self) -> str | None:
        """The one line that refuses a key no HTTP header can carry, or None for a usable (or
        no) key; it names the variable and what is wrong, never the key or a part of it."""
        key = self.api_key()
        problem = key_problem(key) if key else None
        if problem is None:
            return None
        return (
            f"the key in ${self.api_key_env} cannot be sent: it holds {problem}, and an API key "
            "is printable ASCII without spaces (a key copied from a Windows file often ends in "
            "a carriage return); nothing was sent"
        )

    def extra_body(self) -> dict[str, Any] | None:
        return {"grammar": LETTER_GRAMMAR} if self.grammar else None


_NAMED = {"\r": "a carriage return", "\n": "a line feed", "\t": "a tab", " ": "a space"}


def key_problem(key: str) -> str | None:
    """What keeps ``key`` out of an HTTP header (``Authorization: Bearer KEY`` takes printable
    ASCII), with where it is; None for a key that can be sent. The character outside ASCII is
    not named: it is a part of the key."""
    for place, char in enumerate(key, start=1):
        if "!" <= char <= "~":
            continue
        if char in _NAMED:
            what = _NAMED[char]
        elif ord(char) < 0x80:
            what = "a control character"
        else:
            what = "a character outside ASCII"
        return f"{what} at character {place} of {len(key)}"
    return None


def redact(text: str, profile: Profile | None = None) -> str:
    """``text`` with the profile's key removed, as it is and as a message may quote it (escaped
    as in a ``repr``)."""
    key = profile.api_key() if profile else None
    if not key:
        return text
    for form in sorted({key, repr(key)[1:-1], str(key.encode("utf-8", "replace"))[2:-1]},
                       key=len, reverse=True):  # fmt: skip
        text = text.replace(form, "[key hidden]")
    return text
