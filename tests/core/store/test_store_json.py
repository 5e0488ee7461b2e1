"""The store's reading of the JSON it wrote (``rows.stored_json``, ``rows.options_of``): the
same values and the same errors as ``json.loads`` on any text."""

from __future__ import annotations

import json

import pytest

from bagel_studio.core.store.rows import options_of, stored_json

TEXTS = [
    '["a", "b", "c", "d"]',
    '["Ünïcode \\u00e9", "\\ud800", "tab\\t", "quote \\", \\""]',
    ' ["leading space"]',
    '["trailing space"] ',
    '\n["newlines"]\n',
    '{"a": 1}',
    '"a string"',
    "[1, 2.5, null, true]",
    '[["nested"], {"k": "v"}]',
    "3",
]
BAD = ['["a"] x', '["a"', "", "   ", "[1,]", '["a"]["b"]', b'["bytes"]']


@pytest.mark.parametrize("text", TEXTS)
def test_stored_json_reads_what_json_loads_reads(text: str) -> None:
    assert stored_json(text) == json.loads(text)


@pytest.mark.parametrize("text", BAD)
def test_stored_json_refuses_what_json_loads_refuses(text: str | bytes) -> None:
    try:
        expected = json.loads(text)
    except ValueError as exc:
        with pytest.raises(type(exc)):
            stored_json(text)  # type: ignore[arg-type]
    else:  # json.loads takes UTF-8 bytes: so does the store's reading
        assert stored_json(text) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("text", TEXTS[:5] + TEXTS[6:9])
def test_options_of_gives_strings_as_from_json_does(text: str) -> None:
    values = json.loads(text)
    assert options_of(text) == tuple(str(v) for v in values)
    assert all(type(option) is str for option in options_of(text))


def test_options_of_a_number_fails_as_before() -> None:
    with pytest.raises(TypeError):
        options_of("3")
