"""The words the checks read as a curator reads them: the roots of the paper's forbidden
interaction words (``leaky-verb``), the birders' call and song words (``stem-vocalization``), a
record the reader cannot see (``hidden-context``), and a vague answer written in words beside a
specific one (``underspecified-interaction``)."""

from __future__ import annotations

import pytest
from checks_support import checked, new_item

from bagel_studio.core.checks.interactions import leaky_words
from bagel_studio.core.store import Store

INTERACTION = "Masked interaction type inference"
PARTICIPANT = "Masked participant identification"
BAND = "Dominant frequency range"


@pytest.mark.parametrize(
    "word",
    [
        "predation",
        "predatory",
        "consumer",
        "consumption",
        "eater",
        "seed-eaters",
        "infectious",
        "infective",
        "pollinators",
        "parasitization",
        "kleptoparasitism",
        "hyperparasitoids",
        "mutualistic",
        "commensalistic",
    ],
)
def test_leaky_verb_reads_every_word_of_a_forbidden_root(word: str) -> None:
    item = new_item(
        "globi:leak:root",
        "GloBI",
        f"Noted for its {word} habits, how does Vulpes vulpes relate to Microtus agrestis?",
        ["eats", "parasite of", "pollinates", "nests in"],
        "A",
        INTERACTION,
    )
    flag = checked(Store.memory(), item)["globi:leak:root"]["leaky-verb"]
    leaked = word.rpartition("-")[2]  # "seed-eaters": the word of the root is "eaters"
    assert flag.details["words"] == [leaked]
    assert f'"{leaked}"' in flag.message


@pytest.mark.parametrize(
    "word",
    ["feeds", "symbiont", "hostile", "Eastern", "great", "presumption", "hostel", "neat"],
)
def test_leaky_verb_leaves_words_of_other_roots(word: str) -> None:
    assert leaky_words(f"How does the {word} Vulpes vulpes relate to Microtus agrestis?") == []


def _band_item(item_id: str, question: str, vocalization_type: str) -> object:
    return new_item(
        item_id,
        "Xeno-canto",
        question,
        ["~6-8 kHz", "~2-3 kHz", "~9-11 kHz", "~0.5-1 kHz"],
        "A",
        BAND,
        source={"vocalization_type": vocalization_type},
    )


def test_a_birders_call_word_names_a_call() -> None:
    """ "chip", "chirp", "chink", "tsip", "seet" name a call; "warble" a song; a stem naming
    the type outright ("each chip of the song") is read by that name."""
    items = [
        _band_item(
            "xc:junco:chips", "What is the band of the Dark-eyed Junco's chip notes?", "call"
        ),
        _band_item("xc:sparrow:chirp", "How high is a House Sparrow's chirp?", "call"),
        _band_item(
            "xc:towhee:chink", "What is the band of the California Towhee's chinks?", "call"
        ),
        _band_item("xc:warbler:tsip", "How high are the tsip notes of Setophaga?", "call"),
        _band_item(
            "xc:junco:song", "What is the band of the Dark-eyed Junco's chip notes?", "song"
        ),
        _band_item("xc:wren:warble", "What is the band of the Winter Wren's warble?", "song"),
        _band_item("xc:towhee:in-song", "How high is each chip of the Towhee's song?", "call"),
        _band_item("xc:towhee:note", "How high is each note of the California Towhee?", "call"),
    ]
    flags = checked(Store.memory(), *items)
    for named in ("xc:junco:chips", "xc:sparrow:chirp", "xc:towhee:chink", "xc:warbler:tsip"):
        assert "stem-vocalization" not in flags[named], named
    assert "stem-vocalization" not in flags["xc:wren:warble"]
    assert flags["xc:junco:song"]["stem-vocalization"].message == (
        "The stem asks about the call (\"chip\" is a call) but the item's source is typed 'song'"
    )
    assert flags["xc:towhee:in-song"]["stem-vocalization"].message == (
        "The stem asks about the song but the item's source is typed 'call'"
    )
    assert "does not name the vocalization type" in (
        flags["xc:towhee:note"]["stem-vocalization"].message
    )


@pytest.mark.parametrize(
    ("stem", "hidden"),
    [
        ("Which host does the tick record name for Ixodes ricinus?", "the tick record"),
        ("In the museum record, which host does Ixodes ricinus have?", "the museum record"),
        ("What is the oldest record of Ixodes ricinus on a deer?", None),
        ("How does the tick record its host?", None),
        ("Which host is listed in the GloBI row for Ixodes ricinus?", "the globi row"),
        # a body of records named by what they are about names a source (the corpus's label)
        ("In the tick records, which host does Ixodes ricinus have?", None),
        ("In the tick data, which host does Ixodes ricinus have?", None),
        ("According to GloBI, which host does Ixodes ricinus have?", None),
        ("Which host does Ixodes ricinus have in GloBI records?", None),
        ("Which host is the tick's world record holder?", None),
        ("Which host does Ixodes ricinus have, judged by the fossil record?", None),
    ],
)
def test_one_record_the_reader_cannot_see_is_hidden_context(stem: str, hidden: str | None) -> None:
    item = new_item(
        "globi:tick:record",
        "GloBI",
        stem,
        ["Capreolus capreolus", "Parus major", "Sitta europaea", "Apis mellifera"],
        "A",
        PARTICIPANT,
    )
    flag = checked(Store.memory(), item)["globi:tick:record"].get("hidden-context")
    assert (flag.details["phrases"] if flag else None) == ([hidden] if hidden else None)


def test_a_vague_gold_in_words_beside_a_specific_distractor() -> None:
    item = new_item(
        "globi:bat:vague-gold",
        "GloBI",
        "How is the bat Myotis daubentonii related to the midge Chironomus plumosus?",
        [
            "They interact with each other",
            "The bat hunts the midge over water",
            "They compete for the same roosts",
            "They never meet",
        ],
        "A",
        INTERACTION,
    )
    under = checked(Store.memory(), item)["globi:bat:vague-gold"]["underspecified-interaction"]
    assert under.details["options"] == ["A", "B"]
    assert under.message.startswith(
        "A 'They interact with each other' is a vague reading of B 'The bat hunts the midge "
        "over water'"
    )
    assert "record" not in under.message  # no record was consulted


def test_the_vague_reading_message_says_what_implies_what_not_a_record() -> None:
    item = new_item(
        "globi:bee:labels",
        "GloBI",
        "What is the relationship of Bombus terrestris to Fraxinus excelsior?",
        ["visits flowers of", "pollinates", "parasite of", "has habitat"],
        "B",
        INTERACTION,
    )
    under = checked(Store.memory(), item)["globi:bee:labels"]["underspecified-interaction"]
    assert "record" not in under.message
    assert "'pollinates' implies 'visits flowers of'" in under.message
