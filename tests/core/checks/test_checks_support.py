"""Lexical support of answers in the real Wikipedia texts (Koala, Lion) and bioRxiv abstract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from checks_support import add_text, checked, new_item

from bagel_studio.core.checks.support import split_sentences, support_spans
from bagel_studio.core.model import Severity
from bagel_studio.core.store import Store


@pytest.fixture
def wiki(data_dir: Path) -> tuple[Store, dict[str, str]]:
    store = Store.memory()
    keys = {t: add_text(store, data_dir / "wikipedia" / f"{t}.txt") for t in ("Koala", "Lion")}
    return store, keys


def test_support_spans_point_at_the_supporting_sentence(data_dir: Path) -> None:
    text = (data_dir / "wikipedia" / "Koala.txt").read_text(encoding="utf-8")
    spans = support_spans(text, "Wombats")
    assert text[slice(*spans[0])] == "Its closest living relatives are the wombats."
    diet = support_spans(text, "Eucalyptus leaves")
    assert any("leaves of these trees make up most of their diet" in text[s:e] for s, e in diet)
    assert support_spans(text, "Ultrasonic clicks") == []
    assert support_spans(text, "") == []
    assert len(diet) <= 3


def test_sentences_split_at_full_stops_and_headings_not_abbreviations() -> None:
    text = "Koalas eat leaves, e.g. eucalyptus. They sleep.\n== Diet ==\nThey drink little."
    sentences = [text[s:e] for s, e in split_sentences(text)]
    assert sentences == [
        "Koalas eat leaves, e.g. eucalyptus.",
        "They sleep.",
        "== Diet ==",
        "They drink little.",
    ]


def test_supported_gold_and_unsupported_distractors_are_clean(
    wiki: tuple[Store, dict[str, str]],
) -> None:
    store, keys = wiki
    items = [
        new_item(
            "wikipedia:koala:0",
            "Wikipedia",
            "What makes up most of the koala's diet?",
            ["Eucalyptus leaves", "Bamboo shoots", "Insects", "Grass seeds"],
            "A",
            "Diet",
            text_key=keys["Koala"],
        ),
        new_item(
            "wikipedia:koala:1",
            "Wikipedia",
            "How do adult male koalas communicate with rivals and mates?",
            ["Loud bellows", "High-pitched whistles", "Tail slapping", "Ultrasonic clicks"],
            "A",
            "Communication",
            text_key=keys["Koala"],
        ),
        new_item(
            "wikipedia:lion:0",
            "Wikipedia",
            "What kind of prey do lions mostly hunt?",
            ["Large ungulates", "Small rodents", "Fish", "Insects"],
            "A",
            "Diet",
            text_key=keys["Lion"],
        ),
        new_item(
            "wikipedia:lion:1",
            "Wikipedia",
            "What is a social group of lions called?",
            ["A pride", "A pack", "A herd", "A colony"],
            "A",
            "Behavior",
            source={"title": "Lion"},
        ),
    ]
    flags = checked(store, *items)
    assert flags == {item.id: {} for item in items}


def test_unsupported_gold_and_supported_distractor(wiki: tuple[Store, dict[str, str]]) -> None:
    store, keys = wiki
    wrong = new_item(
        "wikipedia:koala:2",
        "Wikipedia",
        "What makes up most of the koala's diet?",
        ["Bamboo shoots", "Eucalyptus leaves", "Insects", "Grass seeds"],
        "A",
        "Diet",
        text_key=keys["Koala"],
    )
    flags = checked(store, wrong)["wikipedia:koala:2"]
    unsupported = flags["unsupported-gold"]
    assert unsupported.severity is Severity.INFO  # under 0.8 precision on the corpus
    assert unsupported.details["options"] == ["A"]
    assert "'Bamboo shoots'" in unsupported.message and "the text Koala" in unsupported.message
    supported = flags["supported-distractor"]
    assert supported.details["options"] == ["B"]
    start, end = supported.details["spans"]["B"]
    koala = store.evidence.find_text(keys["Koala"])
    assert koala is not None
    assert "Eucalyptus woodland, as the leaves of these trees" in koala["text"][start:end]


def test_relatives_question_names_only_the_sentence_about_relatives(
    wiki: tuple[Store, dict[str, str]],
) -> None:
    store, keys = wiki
    item = new_item(
        "wikipedia:koala:3",
        "Wikipedia",
        "What are the closest living relatives of the koala?",
        ["Wombats", "Kangaroos", "Possums", "Bears"],
        "A",
        "Taxonomy",
        text_key=keys["Koala"],
    )
    # Kangaroos, possums and bears are all mentioned in the article, but not as relatives.
    assert checked(store, item)["wikipedia:koala:3"] == {}


def test_biorxiv_inline_abstract_and_generator_spans(data_dir: Path) -> None:
    paper = json.loads(
        (data_dir / "biorxiv" / "biorxiv_2020.02.11.942060_birds_versus_bats.json").read_text()
    )
    question = (
        "Swainson's hawks hunt swarms of Brazilian free-tailed bats emerging at dusk. How did "
        "the danger to a bat depend on where it flew?"
    )
    options = [
        "Lone bats were at a much higher risk of predation than bats in the column",
        "Bats in the middle of the column were caught most often",
        "Hawks ignored lone bats entirely",
        "It depended only on the time of night",
    ]
    source = {"doi": paper["doi"], "title": paper["title"], "text": paper["abstract"]}
    good = new_item(
        "biorxiv:bats:0", "bioRxiv", question, options, "A", "Result Interpretation", source=source
    )
    bad = new_item(
        "biorxiv:bats:1",
        "bioRxiv",
        question,
        options,
        "C",
        "Result Interpretation",
        source=source,
        supporting_evidence=("Predation risk declined with swarm size.",),
    )
    flags = checked(Store.memory(), good, bad)
    assert "unsupported-gold" not in flags["biorxiv:bats:0"]
    unsupported = flags["biorxiv:bats:1"]["unsupported-gold"]
    assert unsupported.details["options"] == ["C"]
    assert "the source text or the generator's supporting spans" in unsupported.message


def test_no_evidence_text_means_no_support_flags() -> None:
    item = new_item(
        "wikipedia:kea:0",
        "Wikipedia",
        "What cognitive ability is noted in kea regarding problem-solving?",
        [
            "They can memorize songs",
            "They can solve logical puzzles",
            "They can mimic human speech",
            "They can navigate using stars",
        ],
        "B",
        "Cognition",
        text_key="title:Kea",
    )
    assert checked(Store.memory(), item)["wikipedia:kea:0"] == {}


@pytest.fixture
def texts(data_dir: Path) -> tuple[Store, dict[str, str]]:
    store = Store.memory()
    names = ("Wolf", "Lion", "Raccoon", "Koala")
    return store, {t: add_text(store, data_dir / "wikipedia" / f"{t}.txt") for t in names}


def test_a_gold_in_other_number_words_and_formats_is_supported(
    texts: tuple[Store, dict[str, str]],
) -> None:
    store, keys = texts
    pups = new_item(
        "wikipedia:wolf:pups",
        "Wikipedia",
        "At what age do wolf pups begin to eat solid food?",
        ["3–4 weeks", "About 8 weeks", "6 months", "1 year"],
        "A",
        "Behavior",
        text_key=keys["Wolf"],
    )
    # "dispersing male lions move more than 25 km (16 mi) away from their natal pride"
    dispersal = new_item(
        "wikipedia:lion:dispersal",
        "Wikipedia",
        "In Kruger National Park, how far do dispersing male lions move from their natal pride?",
        ["Over 25 kilometres", "About 25 metres", "Less than 1 km", "About 400 km"],
        "A",
        "Behavior",
        text_key=keys["Lion"],
    )
    flags = checked(store, pups, dispersal)
    assert flags == {"wikipedia:wolf:pups": {}, "wikipedia:lion:dispersal": {}}


def test_a_number_in_another_unit_or_of_another_thing_supports_nothing(
    texts: tuple[Store, dict[str, str]],
) -> None:
    store, keys = texts
    # "Its diet consists of about 40% invertebrates, 33% plant material and 27% vertebrates."
    share = new_item(
        "wikipedia:raccoon:diet",
        "Wikipedia",
        "What share of the raccoon's diet consists of invertebrates?",
        ["About 40%", "About 27%", "About 75%", "About 5%"],
        "A",
        "Diet",
        text_key=keys["Raccoon"],
    )
    # The Lion text gives 25 km, 65 km and 48-59 km/h, but no distance of 25 metres.
    metres = new_item(
        "wikipedia:lion:metres",
        "Wikipedia",
        "In Kruger National Park, how far do dispersing male lions move from their natal pride?",
        ["About 25 metres", "About 2 km", "About 65 m", "Less than 1 km"],
        "A",
        "Behavior",
        text_key=keys["Lion"],
    )
    flags = checked(store, share, metres)
    assert flags["wikipedia:raccoon:diet"] == {}
    unsupported = flags["wikipedia:lion:metres"]["unsupported-gold"]
    assert "holds none of 'About 25 metres'" in unsupported.message
    assert "supported-distractor" not in flags["wikipedia:lion:metres"]


def test_a_distractor_the_evidence_denies_is_not_supported(data_dir: Path) -> None:
    paper = json.loads(
        (data_dir / "biorxiv" / "biorxiv_2020.02.11.942060_birds_versus_bats.json").read_text()
    )
    source = {"doi": paper["doi"], "title": paper["title"], "text": paper["abstract"]}
    item = new_item(
        "biorxiv:bats:effects",
        "bioRxiv",
        "Catch success was higher against the bat column than against lone bats. Which effect "
        "explains the higher survival of bats flying in the column?",
        [
            "The dilution effect",
            "The confusion effect",
            "The vigilance effect",
            "Predator swamping",
        ],
        "A",
        "Result Interpretation",
        source=source,
    )
    # "... so we found no evidence for any vigilance or confusion effect."
    assert checked(Store.memory(), item)["biorxiv:bats:effects"] == {}


def test_the_flags_name_the_words_they_matched(texts: tuple[Store, dict[str, str]]) -> None:
    store, keys = texts
    item = new_item(
        "wikipedia:wolf:markers",
        "Wikipedia",
        "For how long can wolf scent markers last?",
        ["Several months", "Two to three weeks", "A single day", "One year"],
        "A",
        "Communication",
        text_key=keys["Wolf"],
    )
    flags = checked(store, item)["wikipedia:wolf:markers"]
    # "Such markers can last for two to three weeks, and are typically placed near rocks..."
    supported = flags["supported-distractor"]
    assert supported.details["options"] == ["B"]
    assert "('Two to three weeks' beside the stem's 'last', 'markers')" in supported.message
    assert supported.details["matched"] == {"B": ["Two to three weeks"]}


def test_a_bare_number_held_only_by_sentences_about_other_things_is_unsupported(
    texts: tuple[Store, dict[str, str]],
) -> None:
    store, keys = texts
    teeth = new_item(
        "wikipedia:lion:teeth",
        "Wikipedia",
        "How many teeth does an adult lion have?",
        ["30", "42", "26", "36"],
        "A",
        "Morphology",
        text_key=keys["Lion"],
    )
    unsupported = checked(store, teeth)["wikipedia:lion:teeth"]["unsupported-gold"]
    assert "'30' occurs only in sentences not about the stem" in unsupported.message


def test_a_qualified_distractor_is_not_judged_by_its_words(
    texts: tuple[Store, dict[str, str]],
) -> None:
    store, keys = texts
    # "Such markers can last for two to three weeks" and winter in many a sentence: "Only in
    # winter" says something the words cannot show.
    item = new_item(
        "wikipedia:wolf:when",
        "Wikipedia",
        "When do wolves raise their pups?",
        ["In spring and summer", "Only in winter", "Only at night", "Never in packs"],
        "A",
        "Behavior",
        text_key=keys["Wolf"],
    )
    assert "supported-distractor" not in checked(store, item)["wikipedia:wolf:when"]


def test_a_superlative_of_the_stem_is_looked_for_too(texts: tuple[Store, dict[str, str]]) -> None:
    store, keys = texts
    # "The most important sense for the raccoon is its sense of touch." and "... their sense
    # of smell is important for intraspecific communication": important, not the most.
    item = new_item(
        "wikipedia:raccoon:sense",
        "Wikipedia",
        "Which sense is the most important to the raccoon?",
        ["Touch", "Smell", "Hearing", "Sight"],
        "A",
        "Morphology",
        text_key=keys["Raccoon"],
    )
    assert checked(store, item)["wikipedia:raccoon:sense"] == {}


def test_a_biology_adjective_is_supported_by_its_plain_words(
    texts: tuple[Store, dict[str, str]],
) -> None:
    store, keys = texts
    # "They are predominantly active at night and spend most of their waking hours foraging."
    item = new_item(
        "wikipedia:koala:activity",
        "Wikipedia",
        "When are koalas mostly active?",
        ["Nocturnal", "Diurnal", "Only at dawn", "Throughout the day and night equally"],
        "A",
        "Behavior",
        text_key=keys["Koala"],
    )
    assert "unsupported-gold" not in checked(store, item)["wikipedia:koala:activity"]


_OTTER = " ".join(
    [
        "The otter is a semiaquatic mammal with a long tail.",
        *(
            f"Otters of population {n} use the tail to steer and the tail stores fat."
            for n in range(12)
        ),
        "Tail",
        "The otter's tail can be up to 45 cm in length, thick at its base.",
        *(f"Otters in river {n} eat fish and crabs near the bank." for n in range(10)),
    ]
).replace("Tail The", "Tail\nThe")


def test_a_stem_of_words_the_text_uses_everywhere_is_still_what_it_is_about() -> None:
    # Every sentence says "otter" and most say "tail": the stem has no word of its own to find
    # a sentence by, and the sentence giving the figure is about it all the same.
    item = new_item(
        "wikipedia:otter:tail",
        "Wikipedia",
        "How long can the otter's tail be?",
        ["Up to 45 cm", "Up to 5 cm", "Up to 3 m", "Up to 1 cm"],
        "A",
        "Morphology",
        source={"title": "Otter", "text": _OTTER},
    )
    assert "unsupported-gold" not in checked(Store.memory(), item)["wikipedia:otter:tail"]


def test_golds_written_as_other_ranges_lists_and_roundings_are_supported() -> None:
    text = (
        "Estimates of the nesting success of the plover range from a low of 12% to a high of "
        "40%. Chicks fledge after a four- to seven-week period. Survival rates of adults and "
        "juveniles were 0.81 and 0.47, respectively. About 30.5% of nests were lost to foxes. "
        "The nests were monitored over three weeks."
    )
    source = {"title": "Plover", "text": text}
    items = [
        (
            "success",
            "How successful are plover nests?",
            ["Between 12% and 40%", "About 90%", "Every nest", "None"],
        ),
        (
            "fledge",
            "When do plover chicks fledge?",
            ["Four to seven weeks", "Ten months", "Two days", "One year"],
        ),
        (
            "juveniles",
            "What was the survival rate of juvenile plovers?",
            ["0.47", "0.99", "0.02", "0.65"],
        ),
        (
            "foxes",
            "What share of plover nests did foxes take?",
            ["About 31%", "About 75%", "About 2%", "About 55%"],
        ),
        (
            "monitored",
            "For how many weeks were the plover nests monitored?",
            ["Three", "Ten", "Fifty", "Twenty"],
        ),
    ]
    flags = checked(
        Store.memory(),
        *(
            new_item(
                f"wikipedia:plover:{name}",
                "Wikipedia",
                stem,
                options,
                "A",
                "Behavior",
                source=source,
            )
            for name, stem, options in items
        ),
    )
    assert {k: sorted(v) for k, v in flags.items() if v} == {}


def test_a_distractor_of_the_stems_own_words_is_not_judged_by_them() -> None:
    # The stem's own taxon offered as its prey: every sentence about the stem holds its words.
    text = (
        "The barn owl Tyto alba eats field voles (Microtus agrestis) across Britain. "
        "Pellets of Tyto alba also hold shrews. The barn owl hunts at night over open ground."
    )
    item = new_item(
        "wikipedia:owl:prey",
        "Wikipedia",
        "Which vole does the barn owl (Tyto alba) eat in Britain?",
        ["Microtus agrestis", "Tyto alba", "Rattus rattus", "Mus musculus"],
        "A",
        "Diet",
        source={"title": "Barn owl", "text": text},
    )
    assert "supported-distractor" not in checked(Store.memory(), item)["wikipedia:owl:prey"]


_HERON = (
    "The grey heron Ardea cinerea nests in colonies in tall trees. Most herons breed by the time "
    "they are three years of age. Young herons leave the colony after two years. The heron eats "
    "fish, frogs and the water beetle Dytiscus marginalis, which it finds in shallow water."
)


def test_a_wrong_key_the_sentence_most_about_the_stem_contradicts_is_unsupported() -> None:
    # The sentence most about the stem gives another value of the same thing (or another species
    # of the same genus) than the gold; the gold's figure occurs only in a sentence about
    # something else.
    age = new_item(
        "wikipedia:heron:breed",
        "Wikipedia",
        "By what age have most herons bred?",
        [
            "By about two years",
            "By about three years",
            "By about eight years",
            "By about ten years",
        ],
        "A",
        "Behavior",
        source={"title": "Grey heron", "text": _HERON},
    )
    beetle = new_item(
        "wikipedia:heron:beetle",
        "Wikipedia",
        "Which water beetle does the heron find in shallow water?",
        ["Dytiscus latissimus", "Dytiscus marginalis", "Gyrinus natator", "Carabus violaceus"],
        "A",
        "Diet",
        source={"title": "Grey heron", "text": _HERON},
    )
    flags = checked(Store.memory(), age, beetle)
    breed = flags["wikipedia:heron:breed"]["unsupported-gold"]
    assert breed.details["options"] == ["A"]  # type: ignore[attr-defined]
    assert "'about three years'" in breed.message and "B 'By about three years'" in breed.message  # type: ignore[attr-defined]
    assert "supported-distractor" in flags["wikipedia:heron:breed"]
    found = flags["wikipedia:heron:beetle"]["unsupported-gold"]
    assert "B 'Dytiscus marginalis'" in found.message  # type: ignore[attr-defined]


def test_a_right_key_beside_a_rival_the_text_also_states_stays_supported() -> None:
    # Both values are in the text, each in a sentence about its own thing: the gold's sentence
    # is as much about the stem as the distractor's.
    item = new_item(
        "wikipedia:heron:leave",
        "Wikipedia",
        "After how long do young herons leave the colony?",
        ["After two years", "After three years", "After eight years", "After ten years"],
        "A",
        "Behavior",
        source={"title": "Grey heron", "text": _HERON},
    )
    assert "unsupported-gold" not in checked(Store.memory(), item)["wikipedia:heron:leave"]


def test_british_and_american_spellings_are_one_word() -> None:
    from bagel_studio.core.checks.words import stem

    for british, american in (
        ("defence", "defense"),
        ("behaviour", "behavior"),
        ("colours", "colors"),
        ("colour", "color"),
        ("grey", "gray"),
        ("metres", "meters"),
        ("centre", "center"),
        ("moult", "molt"),
    ):
        assert stem(british) == stem(american), (british, american)
    assert stem("four") != stem("for") and stem("hour") == "hour"


def test_a_distractor_the_text_states_in_the_other_spelling_is_supported() -> None:
    herd = " ".join(
        f"Llamas of herd {n} graze the slopes of the Andes in the dry season." for n in range(30)
    )
    text = f"{herd} Spitting and kicking are a llama's defense tactics. Llamas hum to their young."
    item = new_item(
        "wikipedia:llama:defence",
        "Wikipedia",
        "Which of these is a defence tactic of llamas?",
        ["Spitting", "Kicking", "Singing", "Climbing trees"],
        "A",
        "Behavior",
        source={"title": "Llama", "text": text},
    )
    flag = checked(Store.memory(), item)["wikipedia:llama:defence"]["supported-distractor"]
    assert flag.details["options"] == ["B"]
    assert "'Kicking' beside the stem's 'defence', 'tactic'" in flag.message


def test_a_lone_modifier_supports_a_distractor_only_beside_its_noun() -> None:
    # "Red kangaroo" differs from the other options by "red" alone: a sentence saying "the red"
    # of something else does not say it; one saying "the red kangaroo" does.
    def item(item_id: str, text: str) -> object:
        return new_item(
            item_id,
            "Wikipedia",
            "Which kangaroo has the scientific name Macropus fuliginosus?",
            ["Western grey kangaroo", "Eastern grey kangaroo", "Red kangaroo", "Tree kangaroo"],
            "A",
            "Taxonomy",
            source={"title": "Kangaroo", "text": text},
        )

    apart = item(
        "wikipedia:kangaroo:apart",
        "The western grey kangaroo (Macropus fuliginosus) is less often seen than the red "
        "(outside Australia). Kangaroos live in mobs.",
    )
    beside = item(
        "wikipedia:kangaroo:beside",
        "The western grey kangaroo (Macropus fuliginosus) was long confused with the red "
        "kangaroo, which some called Macropus fuliginosus too. Kangaroos live in mobs.",
    )
    flags = checked(Store.memory(), apart, beside)
    assert "supported-distractor" not in flags["wikipedia:kangaroo:apart"]
    found = flags["wikipedia:kangaroo:beside"]["supported-distractor"]
    assert found.details["options"] == ["C"]


def test_a_second_value_the_sentence_gives_of_the_same_thing_supports_a_distractor() -> None:
    # "usually 12-14 days, but can take as long as 20 days": both are said of the incubation;
    # "40% insects, 33% seeds" gives each value to its own thing.
    text = (
        "Incubation usually takes 12–14 days, but can take as long as 20 days. The plover's "
        "diet is about 40% insects, 33% seeds and 27% snails. Some 9,000 plovers live in the "
        "wild, 300 in zoos."
    )
    source = {"title": "Plover", "text": text}
    incubation = new_item(
        "wikipedia:plover:incubation",
        "Wikipedia",
        "How long does incubation take in the plover?",
        ["12–14 days", "Up to 20 days", "About 2 days", "Several months"],
        "A",
        "Behavior",
        source=source,
    )
    seeds = new_item(
        "wikipedia:plover:seeds",
        "Wikipedia",
        "What share of the plover's diet is seeds?",
        ["33%", "40%", "5%", "90%"],
        "A",
        "Diet",
        source=source,
    )
    wild = new_item(
        "wikipedia:plover:wild",
        "Wikipedia",
        "About how many plovers live in the wild?",
        ["Some 9,000", "About 300", "About 90", "Some 90,000"],
        "A",
        "Conservation",
        source=source,
    )
    # a stem asking the usual value asks the first: "as long as 20 days" is not usual
    usual = new_item(
        "wikipedia:plover:usual",
        "Wikipedia",
        "How long does incubation usually take in the plover?",
        ["12–14 days", "Up to 20 days", "About 2 days", "Several months"],
        "A",
        "Behavior",
        source=source,
    )
    flags = checked(Store.memory(), incubation, seeds, wild, usual)
    found = flags["wikipedia:plover:incubation"]["supported-distractor"]
    assert found.details["options"] == ["B"]
    assert "supported-distractor" not in flags["wikipedia:plover:seeds"]
    assert "supported-distractor" not in flags["wikipedia:plover:wild"]
    assert "supported-distractor" not in flags["wikipedia:plover:usual"]


def test_a_gold_of_un_and_a_change_verb_is_held_by_a_negated_change() -> None:
    # "unaffected" is said by "was not altered", "had no effect on": a negated verb of change
    text = (
        "We measured the bills of 40 finches. Bill length was not altered by the parasite "
        "load of the finches. Wing length grew with age."
    )
    item = new_item(
        "biorxiv:finch:bill",
        "bioRxiv",
        "Did parasite load change the bill length of the finches?",
        [
            "No, bill length was unaffected",
            "Yes, bills grew longer",
            "Yes, bills grew shorter",
            "Yes, bills broke",
        ],
        "A",
        "Result Interpretation",
        source={"title": "Finch bills", "text": text},
    )
    flags = checked(Store.memory(), item)["biorxiv:finch:bill"]
    assert "unsupported-gold" not in flags
