"""The paper's prompts are used verbatim; replies are read strictly, leniently or not at all."""

from __future__ import annotations

import pytest

from bagel_studio.core.domains import BIORXIV, GLOBI, WIKIPEDIA, XENO_CANTO
from bagel_studio.core.llm.parse import parse_letter
from bagel_studio.core.llm.templates import (
    evaluation_prompt,
    evaluation_prompt_hash,
    generation_messages,
    template,
)

PAPER_EVALUATION = """\
You are answering a multiple-choice closed-book benchmark question for testing animal expertise. \
Choose exactly one answer.
Output exactly one capital letter: A, B, C, or D.
Do not output any explanation, words, punctuation, or extra text.

Question: Which bird sings?
Options:
A. Robin
B. Trout
C. Frog
D. Bee
Answer:"""


def test_evaluation_prompt_is_the_papers() -> None:
    prompt = evaluation_prompt("Which bird sings?", ["Robin", "Trout", "Frog", "Bee"])
    assert prompt == PAPER_EVALUATION
    assert len(evaluation_prompt_hash()) == 16


def test_option_text_with_braces_is_not_a_placeholder() -> None:
    prompt = evaluation_prompt("Q {option_b}?", ["{question}", "b", "c", "d"])
    assert "Question: Q {option_b}?" in prompt
    assert "A. {question}" in prompt


@pytest.mark.parametrize(
    ("domain", "placeholder", "first_words"),
    [
        (WIKIPEDIA, "WikipediaText", "You are a scientific question generator."),
        (GLOBI, "Interaction record", "You are creating benchmark-quality"),
        (BIORXIV, "paper", "You are creating benchmark-quality"),
        (XENO_CANTO, "vt", "You are an expert in bioacoustics."),
    ],
)
def test_generation_prompts_become_system_and_user_messages(
    domain: str, placeholder: str, first_words: str
) -> None:
    messages = generation_messages(domain, {placeholder: "EVIDENCE-TEXT"})
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"].startswith(first_words)
    assert "EVIDENCE-TEXT" in messages[1]["content"]
    assert "\\n" not in messages[0]["content"] + messages[1]["content"]
    assert "Assistant:" not in messages[1]["content"]


def test_generation_prompt_files_keep_the_printed_markers() -> None:
    assert "{Interaction record}\\n\\n" in template("globi.txt")
    assert '\\"\\"\\"{WikipediaText}\\"\\"\\"' in template("wikipedia.txt")


@pytest.mark.parametrize(
    ("reply", "parse", "letter"),
    [
        ("C", "strict", "C"),
        (" D\n", "strict", "D"),
        ("The answer is C.", "lenient", "C"),
        (" D\nExplanation: owls eat mice", "lenient", "D"),
        ("B) Fast-flowing streams", "lenient", "B"),
        ("", "invalid", None),
        (None, "invalid", None),
        ("I am not sure", "invalid", None),
        ("ABCD", "invalid", None),
        ("a", "invalid", None),
        ("What is the capital of France?", "invalid", None),
    ],
)
def test_reply_parsing(reply: str | None, parse: str, letter: str | None) -> None:
    parsed = parse_letter(reply)
    assert (parsed.parse, parsed.letter) == (parse, letter)
