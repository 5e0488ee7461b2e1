"""The paper's prompts (files in ``prompts/``), rendered for a request.

The evaluation prompt (Appendix A.1.2) is used exactly as printed; the four generation prompts
(Appendix A.1.1) are split at their ``System:`` / ``User:`` / ``Assistant:`` labels into chat
messages, and each literal ``\\n`` marker the paper prints becomes the line break it stands for.
Placeholders are replaced by plain substitution (they contain spaces and the templates contain
literal braces, so ``str.format`` cannot be used).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

from bagel_studio.core.domains import BIORXIV, GLOBI, LETTERS, WIKIPEDIA, XENO_CANTO

GENERATION_FILES = {
    WIKIPEDIA: "wikipedia.txt",
    GLOBI: "globi.txt",
    BIORXIV: "biorxiv.txt",
    XENO_CANTO: "xeno_canto.txt",
}
_ROLE = re.compile(r"^(System|User|Assistant):[ ]?", re.MULTILINE)


@cache
def template(name: str) -> str:
    """A prompt file's text without its final newline."""
    # a file beside this module (a plain read: importlib.resources took some 5 ms to set itself
    # up at the end of every export), else wherever the package's loader keeps it
    path = Path(__file__).with_name("prompts") / name
    if path.is_file():
        text = path.read_text("utf-8")
    else:  # pragma: no cover - a zipped or otherwise frozen package
        from importlib import resources

        text = resources.files("bagel_studio.core.llm").joinpath("prompts", name).read_text("utf-8")
    return text[:-1] if text.endswith("\n") else text


def evaluation_template() -> str:
    """The paper's closed-book evaluation prompt, as its file holds it."""
    return template("evaluation.txt")


def text_hash(text: str) -> str:
    """A short hash of a prompt (16 hex digits of its SHA-256), stored with what a model answered
    to it, so that answers to another prompt are never mixed in."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def evaluation_prompt_hash() -> str:
    """The hash of the evaluation prompt, recorded with every answer and in the manifest."""
    return text_hash(evaluation_template())


def fill(text: str, values: Mapping[str, str]) -> str:
    """Replace each ``{name}`` placeholder of ``values`` (one pass, so values are never
    re-scanned for placeholders)."""
    if not values:
        return text
    pattern = re.compile("|".join(re.escape("{" + k + "}") for k in values))
    return pattern.sub(lambda m: values[m.group(0)[1:-1]], text)


def option_values(options: Sequence[str]) -> dict[str, str]:
    """The options as the prompts' ``option_a`` to ``option_d`` placeholders."""
    return {
        f"option_{letter.lower()}": text for letter, text in zip(LETTERS, options, strict=False)
    }


def evaluation_prompt(question: str, options: Sequence[str]) -> str:
    """The paper's closed-book evaluation prompt for one item, options in the order shown."""
    return fill(evaluation_template(), {"question": question, **option_values(options)})


def options_only_template() -> str:
    """The evaluation prompt with the question removed: the paper's text without its
    ``Question:`` line (the audit's options-only baseline asks what a model picks from the four
    options alone)."""
    lines = evaluation_template().split("\n")
    return "\n".join(line for line in lines if not line.startswith("Question:"))


def options_only_prompt(options: Sequence[str]) -> str:
    """The evaluation prompt without its question: the audit's options-only baseline."""
    return fill(options_only_template(), option_values(options))


def options_only_prompt_hash() -> str:
    """The hash of the options-only prompt, stored with its answers."""
    return text_hash(options_only_template())


def judge_prompt(question: str, options: Sequence[str], gold: str, evidence: str) -> str:
    """The studio's judge prompt, filled for one item: its question, options, gold and evidence."""
    values = {"question": question, "gold": gold, "evidence": evidence, **option_values(options)}
    return fill(template("judge.txt"), values)


def generation_messages(domain: str, values: Mapping[str, str]) -> list[dict[str, str]]:
    """The paper's generation prompt for ``domain`` as chat messages (system, user)."""
    text = fill(template(GENERATION_FILES[domain]), values)
    text = text.replace("\\n", "\n").replace('\\"', '"')
    parts = _ROLE.split(text)
    messages: list[dict[str, str]] = []
    for role, body in zip(parts[1::2], parts[2::2], strict=True):
        body = body.strip()
        if role != "Assistant" and body:
            messages.append({"role": role.lower(), "content": body})
    return messages


def generation_prompt_hash(domain: str) -> str:
    """The hash of ``domain``'s generation prompt, stored with each regeneration."""
    return text_hash(template(GENERATION_FILES[domain]))
