"""Checks on any item's wording: near-duplicate options, gold in the stem, hidden context; and
the paper's own printed items, which trip none of them."""

from __future__ import annotations

import json
from pathlib import Path

from checks_support import checked, new_item

from bagel_studio.core.checks import CHECKS
from bagel_studio.core.checks.interaction_types import labels
from bagel_studio.core.checks.text import LABEL_WORDS
from bagel_studio.core.checks.words import stem_set, words
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import ItemContent, Severity
from bagel_studio.core.store import NewItem, Store

TEXT_CHECKS = {"duplicate-options", "gold-in-stem", "hidden-context"}


def paper_items(data_dir: Path) -> list[NewItem]:
    items = []
    for line in (data_dir / "items" / "paper_examples.jsonl").read_text().splitlines():
        data = json.loads(line)
        content = ItemContent(
            data["question"],
            tuple(data["options"]),
            LETTERS.index(data["answer"]),
            data["dimension"],
            data.get("level"),
        )
        items.append(NewItem(data["id"], data["domain"], content))
    return items


def test_every_check_has_a_one_line_explanation() -> None:
    expected = {
        "duplicate-options",
        "gold-in-stem",
        "hidden-context",
        "unsupported-gold",
        "supported-distractor",
        "taxon-overlap",
        "subspecies-collision",
        "stem-taxon-in-options",
        "also-documented",
        "leaky-verb",
        "underspecified-interaction",
        "vocalization-missing",
        "vocalization-mixed",
        "vocalization-uncertain",
        "stem-vocalization",
        "option-count",
    }
    assert expected <= set(CHECKS)
    assert all(text.strip() and "\n" not in text for text in CHECKS.values())


def test_near_duplicate_options_are_flagged() -> None:
    plural = new_item(
        "w:1",
        "Wikipedia",
        "In which habitat do Andean flamingos breed?",
        ["Salt lakes", "Forests", "The salt lake", "Deserts"],
        "A",
        "Habitat",
    )
    typo = new_item(
        "w:2",
        "Wikipedia",
        "What do koalas mostly feed on?",
        ["Leaves of eucalyptus trees", "Leaves of eucalyptus tress", "Insects", "Grass seeds"],
        "A",
        "Diet",
    )
    flags = checked(Store.memory(), plural, typo)
    assert flags["w:1"]["duplicate-options"].details["options"] == ["A", "C"]
    assert flags["w:1"]["duplicate-options"].severity is Severity.WARNING
    assert flags["w:2"]["duplicate-options"].details["options"] == ["A", "B"]


def test_distinct_names_and_numbers_are_not_duplicates() -> None:
    names = new_item(
        "w:3",
        "Wikipedia",
        "What is the scientific name of the Andean flamingo?",
        [
            "Phoenicopterus andinus",
            "Phoenicoparrus andinus",
            "Phoenicopterus chilensis",
            "Phoenicoparrus chilensis",
        ],
        "B",
        "Taxonomy",
    )
    bands = new_item(
        "xc:1",
        "Xeno-canto",
        "What is the typical dominant frequency range of the song of the Red Warbler?",
        ["~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz"],
        "B",
        "Dominant frequency range",
        source={"vocalization_type": "song"},
    )
    flags = checked(Store.memory(), names, bands)
    assert "duplicate-options" not in flags["w:3"]
    assert "duplicate-options" not in flags["xc:1"]


def test_gold_answer_in_the_stem() -> None:
    verbatim = new_item(
        "w:4",
        "Wikipedia",
        "Koalas feed on eucalyptus leaves; what makes up most of their diet?",
        ["Bamboo shoots", "Eucalyptus leaves", "Insects", "Grass seeds"],
        "B",
        "Diet",
    )
    reordered = new_item(
        "w:5",
        "Wikipedia",
        "Which lions, living in groups called prides, are social?",
        ["Prides of lions", "Lone males", "Nomadic females", "Cubs"],
        "A",
        "Behavior",
    )
    flags = checked(Store.memory(), verbatim, reordered)
    assert flags["w:4"]["gold-in-stem"].details == {"options": ["B"], "match": "verbatim"}
    assert "'Eucalyptus leaves'" in flags["w:4"]["gold-in-stem"].message
    assert flags["w:5"]["gold-in-stem"].details["match"] == "all its content words"


def test_stem_referring_to_hidden_context() -> None:
    passage = new_item(
        "w:6",
        "Wikipedia",
        "According to the passage, what do koalas eat?",
        ["Eucalyptus leaves", "Bamboo", "Insects", "Grass"],
        "A",
        "Diet",
    )
    record = new_item(
        "g:1",
        "GloBI",
        "In the record above, which taxon is the host?",
        ["Procyon lotor", "Ursus americanus", "Canis lupus", "Lynx rufus"],
        "A",
        "Masked participant identification",
    )
    flags = checked(Store.memory(), passage, record)
    assert flags["w:6"]["hidden-context"].details["phrases"] == ["according to the passage"]
    assert '"the record"' in flags["g:1"]["hidden-context"].message


def test_a_source_named_after_according_to_is_no_hidden_context() -> None:
    named = new_item(
        "w:named",
        "Wikipedia",
        "According to the 2019 North American Breeding Bird Survey, how has the species fared?",
        ["It declined", "It increased", "It held steady", "It vanished"],
        "A",
        "Geographic Distribution",
    )
    agency = new_item(
        "w:agency",
        "Wikipedia",
        "According to the IUCN, how is the species listed?",
        ["Least Concern", "Vulnerable", "Endangered", "Extinct"],
        "A",
        "Geographic Distribution",
    )
    survey = new_item(
        "w:survey",
        "Wikipedia",
        "According to the 2019 survey, how has the species fared?",
        ["It declined", "It increased", "It held steady", "It vanished"],
        "A",
        "Geographic Distribution",
    )
    flags = checked(Store.memory(), named, agency, survey)
    assert "hidden-context" not in flags["w:named"]
    assert "hidden-context" not in flags["w:agency"]
    assert flags["w:survey"]["hidden-context"].details["phrases"] == ["according to the"]


def test_the_papers_printed_items_trip_no_text_check(data_dir: Path) -> None:
    items = paper_items(data_dir)
    flags = checked(Store.memory(), *items)
    assert len(flags) == 17
    assert all(not set(f) & TEXT_CHECKS for f in flags.values())
    # No evidence is loaded, so the evidence checks stay silent; no item is blocked.
    assert all(not {"unsupported-gold", "supported-distractor"} & set(f) for f in flags.values())
    assert all(fl.severity is not Severity.BLOCKING for f in flags.values() for fl in f.values())


def test_this_record_with_words_between_and_the_authors_of_a_study() -> None:
    record = new_item(
        "g:2",
        "GloBI",
        "In this GloBI interaction record, which taxon is the host of Ixodes ricinus?",
        ["Capreolus capreolus", "Ursus americanus", "Canis lupus", "Lynx rufus"],
        "A",
        "Masked participant identification",
    )
    fossil = new_item(
        "w:7",
        "Wikipedia",
        "What does the fossil record show about the lion's former range?",
        ["It reached the Americas", "It was confined to Asia", "It was Arctic", "It was alpine"],
        "A",
        "Geographic Distribution",
    )
    authors = new_item(
        "b:1",
        "bioRxiv",
        "Swainson's hawks hunt swarms of free-tailed bats. What did the authors conclude explains "
        "the survival of bats in the column?",
        ["Dilution", "Confusion", "Vigilance", "Speed"],
        "A",
        "Result Interpretation",
    )
    according = new_item(
        "b:2",
        "bioRxiv",
        "According to the author, what drives the segregation of the two species?",
        ["Diet", "Body size", "Song", "Nest sites"],
        "A",
        "Result Interpretation",
    )
    flags = checked(Store.memory(), record, fossil, authors, according)
    assert flags["g:2"]["hidden-context"].details["phrases"] == ["this globi interaction record"]
    assert "hidden-context" not in flags["w:7"]
    assert "hidden-context" not in flags["b:1"]
    assert "hidden-context" not in flags["b:2"]  # one author, named "according to", as well


def test_a_species_beside_its_own_subspecies_in_any_domain() -> None:
    item = new_item(
        "w:8",
        "Wikipedia",
        "To which subspecies do the lions of East and Southern Africa belong?",
        ["Panthera leo melanochaita", "Panthera leo", "Panthera leo leo", "Panthera tigris"],
        "A",
        "Taxonomy",
    )
    flags = checked(Store.memory(), item)["w:8"]
    assert flags["subspecies-collision"].details["options"] == ["A", "B"]
    assert "duplicate-options" not in flags


def _interaction_options(*options: str) -> dict[str, object]:
    item = new_item(
        "g:q",
        "GloBI",
        "How is the heron related to the frog?",
        list(options),
        "A",
        "Masked interaction type inference",
    )
    return checked(Store.memory(), item)["g:q"]


def test_the_same_interaction_in_other_verbs_is_a_duplicate() -> None:
    flags = _interaction_options(
        "It preys on the frog",
        "It hunts and eats the frog",
        "It nests beside the frog",
        "It is eaten by the frog",
    )
    flag = flags["duplicate-options"]
    assert flag.details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    assert "preys" in flag.message and "hunts" in flag.message  # type: ignore[attr-defined]


def test_interactions_the_other_way_round_or_about_other_things_are_not_duplicates() -> None:
    for first, second in [
        ("It eats the frog", "It is eaten by the frog"),
        ("Predator of the frog", "Prey of the frog"),
        ("It preys on the frog", "It preys on the frog's tadpoles"),
        ("It eats the frog", "It does not eat the frog"),
        ("It hunts the frog", "It eats the frog"),
    ]:
        assert "duplicate-options" not in _interaction_options(
            first, second, "Neither", "Something else"
        ), (first, second)


def test_a_subspecies_named_in_brackets_beside_its_species() -> None:
    item = new_item(
        "w:tiger",
        "Wikipedia",
        "Which tiger lives in the Sundarbans mangroves?",
        [
            "Bengal tiger (Panthera tigris tigris)",
            "Tiger (Panthera tigris)",
            "Sumatran tiger (Panthera tigris sondaica)",
            "Snow leopard (Panthera uncia)",
        ],
        "A",
        "Habitat",
    )
    flags = checked(Store.memory(), item)["w:tiger"]
    collision = flags["subspecies-collision"]
    assert collision.details["options"] == ["A", "B"]
    assert "Panthera tigris tigris" in collision.message


def test_the_stems_own_taxon_offered_as_a_wrong_option_in_any_domain() -> None:
    orangutan = {"title": "Orangutan", "scientific_name": "Pongo", "taxonomy": {"genus": "Pongo"}}
    asked = new_item(
        "w:pongo",
        "Wikipedia",
        "Which genus is the closest living relative of Pongo, apart from the extinct ones?",
        ["Gigantopithecus", "Pongo", "Hylobates", "Macaca"],
        "A",
        "Taxonomy",
        source=orangutan,
    )
    # a place the stem sets aside is no taxon: "Borneo" offered again is not flagged
    place = new_item(
        "w:pongo:place",
        "Wikipedia",
        "Apart from Borneo, on which island do orangutans live?",
        ["Sumatra", "Borneo", "Java", "Bali"],
        "A",
        "Habitat",
        source=orangutan,
    )
    gold = new_item(
        "w:pongo:gold",
        "Wikipedia",
        "To which genus does Pongo abelii belong?",
        ["Pongo", "Gorilla", "Pan", "Hylobates"],
        "A",
        "Taxonomy",
    )
    flags = checked(Store.memory(), asked, gold, place)
    assert "stem-taxon-in-options" not in flags["w:pongo:place"]
    offered = flags["w:pongo"]["stem-taxon-in-options"]
    assert offered.details["options"] == ["B"]
    assert "'Pongo'" in offered.message
    # the stem's taxon (or its genus) as the gold is no flaw
    assert "stem-taxon-in-options" not in flags["w:pongo:gold"]


_WALLABY = {
    "title": "Wallaby",
    "scientific_name": "Macropodidae",
    "common_names": ["wallaby"],
    "taxonomy": {"class": "Mammalia", "order": "Diprotodontia", "family": "Macropodidae"},
    "text": (
        "A wallaby is a small macropod. The swamp wallaby (Wallabia bicolor) lives in eastern "
        "Australia. Wallabies eat grasses and leaves. The closest relatives of the weasels are "
        "the other Mustelinae genera."
    ),
}


def test_taxa_that_contain_one_another_in_any_domain() -> None:
    def item(item_id: str, question: str, options: list[str]) -> object:
        return new_item(item_id, "Wikipedia", question, options, "A", "Taxonomy", source=_WALLABY)

    items = [
        # the text gives a wallaby's binomial: its genus lies in the article's family
        item(
            "w:wallabia",
            "To which taxon does the swamp wallaby belong?",
            ["Wallabia", "Macropodidae", "Phalangeridae", "Vombatidae"],
        ),
        # the codes' endings: the nominotypical subfamily lies in its family
        item(
            "w:weasel",
            "Which of these taxa includes the weasels?",
            ["Mustelinae", "Mustelidae", "Canidae", "Felidae"],
        ),
        # the article's own lineage: an order and its family
        item(
            "w:lineage",
            "Which of these taxa includes the wallabies?",
            ["Macropodidae", "Diprotodontia", "Canidae", "Felidae"],
        ),
        # families side by side: no overlap; a genus the text does not place: none either
        item(
            "w:families",
            "To which family does the swamp wallaby belong?",
            ["Macropodidae", "Phalangeridae", "Vombatidae", "Canidae"],
        ),
        item(
            "w:unplaced",
            "Which of these taxa includes the wallabies?",
            ["Macropodidae", "Petrogale", "Canidae", "Felidae"],
        ),
    ]
    flags = checked(Store.memory(), *items)
    wallabia = flags["w:wallabia"]["taxon-overlap"]
    assert wallabia.details["options"] == ["A", "B"]
    assert "swamp wallaby (Wallabia bicolor)" in wallabia.message
    assert flags["w:weasel"]["taxon-overlap"].details["options"] == ["A", "B"]
    assert "endings" in flags["w:weasel"]["taxon-overlap"].message
    assert flags["w:lineage"]["taxon-overlap"].details["options"] == ["A", "B"]
    assert "taxon-overlap" not in flags["w:families"]
    assert "taxon-overlap" not in flags["w:unplaced"]


def test_an_interaction_label_and_its_inverse_are_not_duplicates() -> None:
    for first, second in [
        ("preyed upon by", "preys on"),
        ("parasitized by", "parasitizes"),
        ("pollinated by", "pollinates"),
    ]:
        assert "duplicate-options" not in _interaction_options(
            first, second, "co-occurs with", "lives near"
        ), (first, second)


def test_an_interaction_label_and_its_wording_are_duplicates() -> None:
    for first, second, type_ in [
        ("has ectoparasite", "is parasitized externally by", "ectoparasite of"),
        ("internal parasite of", "endoparasite of", "endoparasite of"),
        ("has parasite", "is parasitised by", "parasite of"),
    ]:
        flag = _interaction_options(first, second, "eats", "visits flowers of")
        assert f"the same interaction, {type_}" in flag["duplicate-options"].message, (  # type: ignore[attr-defined]
            first,
            second,
        )
    # inside is not outside, and a parasite is not said to be either
    for first, second in [
        ("has ectoparasite", "is parasitised internally by"),
        ("has endoparasite", "has parasite"),
        ("endoparasite of", "is parasitized internally by"),
    ]:
        assert "duplicate-options" not in _interaction_options(
            first, second, "eats", "visits flowers of"
        ), (first, second)


def test_no_interaction_label_holds_more_content_words_than_the_text_checks_look_up() -> None:
    assert max(len(stem_set(words(label))) for label in labels()) + 1 <= LABEL_WORDS


def test_a_sound_made_with_a_light_verb_is_the_verb() -> None:
    flags = _interaction_options(
        "They hiss", "They growl", "They make hissing sounds", "They stay silent"
    )
    flag = flags["duplicate-options"]
    assert flag.details["options"] == ["A", "C"]  # type: ignore[attr-defined]
    assert '"make ... sounds" adds nothing' in flag.message  # type: ignore[attr-defined]
    assert "duplicate-options" in _interaction_options(
        "It whistles", "It emits a whistling noise", "It hums", "It clicks"
    )
    for first, second in [
        ("They make hissing sounds", "They make clicking sounds"),
        ("They make no sound", "They hiss"),
    ]:
        assert "duplicate-options" not in _interaction_options(
            first, second, "They growl", "They sing"
        ), (first, second)


def test_a_gold_named_in_passing_beside_a_congener_is_given_away() -> None:
    passing = new_item(
        "g:passing",
        "GloBI",
        "Which salamander's larvae did the beetle Dytiscus marginalis eat in streams shared "
        "with Salamandra atra?",
        ["Triturus cristatus", "Salamandra atra", "Salamandra salamandra", "Lissotriton vulgaris"],
        "B",
        "Masked participant identification",
    )
    # a record of the pike eating pike: the stem has to name the pike, which is the gold
    question = "Which fish is recorded in the diet of Esox lucius in Sweden?"
    options = ["Esox lucius", "Perca fluviatilis", "Rutilus rutilus", "Abramis brama"]
    dimension = "Masked participant identification"
    cannibal = new_item(
        "g:cannibal",
        "GloBI",
        question,
        options,
        "A",
        dimension,
        supporting_evidence=("Esox lucius eats Esox lucius",),
    )
    other = new_item(
        "g:other",
        "GloBI",
        question,
        options,
        "A",
        dimension,
        supporting_evidence=("Esox lucius eats Perca fluviatilis",),
    )
    # a passage naming the species twice is no record of it with itself
    passage = new_item(
        "w:passage",
        "Wikipedia",
        question,
        options,
        "A",
        "Diet",
        supporting_evidence=("Esox lucius eats fish, and large Esox lucius eat small ones",),
    )
    flags = checked(Store.memory(), passing, cannibal, other, passage)
    assert flags["g:passing"]["gold-in-stem"].details["options"] == ["B"]
    assert "gold-in-stem" not in flags["g:cannibal"]
    assert flags["g:other"]["gold-in-stem"].details["match"] == "verbatim"
    assert flags["w:passage"]["gold-in-stem"].details["match"] == "verbatim"


def test_a_stem_naming_every_candidate_gives_no_gold_away() -> None:
    candidates = new_item(
        "w:cand",
        "Wikipedia",
        "Did rainfall or temperature change when the frogs started calling?",
        [
            "Rainfall did, temperature did not",
            "Temperature did, rainfall did not",
            "Both did",
            "Neither did",
        ],
        "A",
        "Behavior",
    )
    ranked = new_item(
        "w:rank",
        "Wikipedia",
        "How did the finches rank the seeds of millet, hemp and oats?",
        ["Millet > hemp > oats", "Oats > hemp > millet", "Hemp > millet > oats", "No preference"],
        "A",
        "Diet",
    )
    leak = new_item(
        "w:leak",
        "Wikipedia",
        "Finches prefer millet seeds; which seeds do finches prefer?",
        ["Millet seeds", "Hemp", "Oats", "Rice"],
        "A",
        "Diet",
    )
    flags = checked(Store.memory(), candidates, ranked, leak)
    assert "gold-in-stem" not in flags["w:cand"]
    assert "gold-in-stem" not in flags["w:rank"]
    assert flags["w:leak"]["gold-in-stem"].details["match"] == "verbatim"


def test_a_study_the_stem_calls_described_is_hidden_context() -> None:
    described = new_item(
        "w:described",
        "Wikipedia",
        "In the experiment described, how many lambs were weighed?",
        ["40", "12", "80", "6"],
        "A",
        "Morphology",
    )
    described_study = new_item(
        "b:described",
        "bioRxiv",
        "How long had the guppies persisted in the stream in the study described?",
        ["Over 50 years", "Over 5 years", "Two months", "A century"],
        "A",
        "Result Interpretation",
    )
    plain = new_item(
        "b:plain",
        "bioRxiv",
        "How many lambs did the study weigh, and which breed was described as the heaviest?",
        ["40", "12", "80", "6"],
        "A",
        "Result Interpretation",
    )
    flags = checked(Store.memory(), described, described_study, plain)
    assert flags["w:described"]["hidden-context"].details["phrases"] == ["the experiment described"]
    assert flags["b:described"]["hidden-context"].details["phrases"] == ["the study described"]
    assert "hidden-context" not in flags["b:plain"]


def test_a_one_word_gold_the_stem_holds_in_another_form_is_given_away() -> None:
    plural = new_item(
        "w:plural",
        "Wikipedia",
        "Goats are browsers that nibble shrubs. How do goats feed?",
        ["Browser", "Grazer", "Filter feeder", "Scavenger"],
        "A",
        "Diet",
    )
    other = new_item(
        "w:other",
        "Wikipedia",
        "Goats nibble shrubs. How do goats feed?",
        ["Browser", "Grazer", "Filter feeder", "Scavenger"],
        "A",
        "Diet",
    )
    flags = checked(Store.memory(), plural, other)
    assert flags["w:plural"]["gold-in-stem"].details["match"] == "verbatim"
    assert "gold-in-stem" not in flags["w:other"]


def test_a_species_beside_its_own_subspecies_is_no_taxon_overlap() -> None:
    item = new_item(
        "w:hare",
        "Wikipedia",
        "Which species is the mountain hare?",
        ["Lepus timidus", "Lepus timidus hibernicus", "Lepus europaeus", "Oryctolagus cuniculus"],
        "A",
        "Taxonomy",
    )
    flags = checked(Store.memory(), item)["w:hare"]
    assert "taxon-overlap" not in flags  # subspecies-collision's to say
    assert "subspecies-collision" in flags


def test_a_stem_describing_what_a_name_names_in_other_forms_of_its_words_gives_no_gold_away() -> (
    None
):
    # the stem holds the gold's words scattered, one only as a verb ("right itself" for
    # "righting"): it describes the reflex, it does not name it; written as in the gold, the
    # words give it away
    options = [
        "The lizard righting reflex",
        "The startle reflex",
        "The freezing reflex",
        "The flight response",
    ]
    described = new_item(
        "w:righting",
        "Wikipedia",
        "What name is given to the reflex that lets a falling lizard right itself?",
        options,
        "A",
        "Behavior",
    )
    named = new_item(
        "w:righting-named",
        "Wikipedia",
        "Which reflex of a falling lizard, a righting one, lets it land on its feet?",
        options,
        "A",
        "Behavior",
    )
    flags = checked(Store.memory(), described, named)
    assert "gold-in-stem" not in flags["w:righting"]
    assert flags["w:righting-named"]["gold-in-stem"].details["match"] == "all its content words"
