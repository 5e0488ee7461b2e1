"""Near-duplicates are items asking the same fact: templated stems about another species or
answered by another prey are other facts, however many words they share; the same fact asked in
other words, or answered with its number written otherwise, is one fact twice."""

from __future__ import annotations

from bagel_studio.core.audit import AuditItem, audit_flags, audit_items
from bagel_studio.core.audit.duplicates import canonical_gold, differ
from bagel_studio.core.model import ItemContent


def _item(
    item_id: str,
    question: str,
    options: tuple[str, ...],
    dimension: str = "Masked participant identification",
    domain: str = "GloBI",
    about: frozenset[str] = frozenset(),
) -> AuditItem:
    content = ItemContent(question, options, 0, dimension, "easy")
    return AuditItem(item_id, domain, dimension, question, options, 0, None, about, content)


def test_templated_stems_about_other_species_or_other_prey_are_other_facts() -> None:
    template = "In GloBI records from north-eastern Poland, which organism is eaten by {}?"
    fox = frozenset({"taxon:vulpes vulpes"})
    items = [
        _item(
            "fox:vole",
            template.format("Vulpes vulpes"),
            ("Microtus arvalis", "a", "b", "c"),
            about=fox | {"record:ash#1449"},
        ),
        _item(
            "fox:field-vole",
            template.format("Vulpes vulpes"),
            ("Microtus agrestis", "a", "b", "c"),
            about=fox | {"record:ash#1450"},
        ),
        _item(
            "marten:vole",
            template.format("Martes martes"),
            ("Microtus arvalis", "a", "b", "c"),
            about=frozenset({"taxon:martes martes"}),
        ),
    ]
    assert audit_items(items).duplicates == []


def test_the_same_fact_in_other_words_and_number_formats_is_one_fact_twice() -> None:
    lion = frozenset({"text:title:Lion"})
    items = [
        _item(
            "lion:a",
            "How old are lion cubs when their mother brings them back to the pride?",
            ("Six to eight weeks", "a", "b", "c"),
            "Behavior",
            "Wikipedia",
            lion,
        ),
        _item(
            "lion:b",
            "At what age does a lioness reintegrate her cubs into the pride?",
            ("6–8 weeks", "d", "e", "f"),
            "Behavior",
            "Wikipedia",
            lion,
        ),
        _item(
            "wolf:a",
            "At what age does a wolf begin hunting with the pack?",
            ("6–8 weeks", "d", "e", "f"),
            "Behavior",
            "Wikipedia",
            frozenset({"text:title:Wolf"}),
        ),
    ]
    report = audit_items(items)
    assert report.duplicates == [["lion:a", "lion:b"]]
    flag = audit_flags(report)["lion:a"][0]
    assert flag.message == (
        "Says the same thing as lion:b (the same gold 'Six to eight weeks'; about title:Lion)"
    )


def test_canonical_golds_and_differing_subjects() -> None:
    assert canonical_gold("3 to 4 weeks") == canonical_gold("three to four weeks")
    assert canonical_gold("Eucalyptus leaves") == canonical_gold("leaves of eucalyptus")
    assert canonical_gold("About 40%") != canonical_gold("About 40 km")
    assert differ({"taxon:vulpes vulpes"}, {"taxon:martes martes", "text:title:Fox"})
    assert not differ({"taxon:vulpes vulpes", "record:a#1"}, {"taxon:vulpes vulpes"})
    assert not differ({"text:inline:b1", "text:doi:10.1/x"}, {"text:inline:b2", "text:doi:10.1/x"})


def test_a_lone_number_leaks_nothing_and_a_hedge_is_not_looked_for() -> None:
    cheetah = frozenset({"text:title:Cheetah"})
    lion = frozenset({"text:title:Lion"})
    items = [
        _item(
            "cheetah:litter",
            "How many cubs, three or four as a rule, does a cheetah bear?",
            ("Three or four", "One", "Ten", "Twelve"),
            "Behavior",
            "Wikipedia",
            cheetah,
        ),
        _item(
            "cheetah:subspecies",
            "How many subspecies of cheetah are recognised today?",
            ("Four", "One", "Twelve", "Twenty"),
            "Taxonomy",
            "Wikipedia",
            cheetah,
        ),
        _item(
            "lion:cubs",
            "Lion cubs open their eyes about seven days after birth; when do they join the pride?",
            ("Six to eight weeks", "a", "b", "c"),
            "Behavior",
            "Wikipedia",
            lion,
        ),
        _item(
            "lion:eyes",
            "How many days after birth do lion cubs open their eyes?",
            ("Around seven days", "d", "e", "f"),
            "Behavior",
            "Wikipedia",
            lion,
        ),
    ]
    leaks = [(leak.item_id, leak.leaked_item_id) for leak in audit_items(items).leaks]
    assert leaks == [("lion:cubs", "lion:eyes")]


def test_one_species_sound_asked_from_two_recordings_is_one_fact_twice() -> None:
    # A self-contained acoustic item asks of the species' song, not of one clip: two recordings
    # of one species asked the same topic with the same gold ask one fact. Another species
    # with the same template and gold is another fact.
    def sound(item_id: str, question: str, gold: str, recording: str, taxon: str) -> AuditItem:
        about = frozenset({f"recording:{recording}", f"taxon:{taxon}"})
        content = ItemContent(question, (gold, "x", "y", "z"), 0, "Dominant frequency range", "")
        return AuditItem(
            item_id,
            "Xeno-canto",
            content.dimension,
            question,
            content.options,
            0,
            recording,
            about,
            content,
        )

    items = [
        sound(
            "wren:a",
            "What is the dominant frequency range of the wren's song?",
            "~4-7 kHz",
            "xc1",
            "troglodytes troglodytes",
        ),
        sound(
            "wren:b",
            "In which band does most of a wren song's energy lie?",
            "Roughly 4 to 7 kHz",
            "xc2",
            "troglodytes troglodytes",
        ),
        sound(
            "robin:a",
            "What is the dominant frequency range of the robin's song?",
            "~4-7 kHz",
            "xc3",
            "erithacus rubecula",
        ),
    ]
    assert audit_items(items).duplicates == [["wren:a", "wren:b"]]


def test_a_common_name_after_a_possessive_is_no_binomial() -> None:
    from bagel_studio.core.audit.items import stored_subjects

    questions = [
        "In which band does most of the energy of a Bewick's Wren song lie?",
        "Which insect does Cory's Shearwater chick eat?",
        "Which vole does Tyto alba eat?",
    ]
    found = stored_subjects([None] * 3, [None] * 3, [None] * 3, [{}] * 3, questions)
    assert found == [frozenset(), frozenset(), frozenset({"taxon:tyto alba"})]


def test_a_stem_that_only_names_another_items_answer_does_not_leak_it() -> None:
    """A leak states what the other item asks: naming its answer in passing is not enough. "How
    tall is a red kangaroo?" does not say which kangaroo is Osphranter rufus; a stem about the
    fox and the vole in pastures does say which mammal the fox preys on there."""
    kangaroo = frozenset({"text:title:Kangaroo"})
    items = [
        _item(
            "kangaroo:name",
            "Which kangaroo has the scientific name Osphranter rufus?",
            ("Red kangaroo", "Eastern grey kangaroo", "Western grey kangaroo", "Antilopine"),
            "Taxonomy",
            "Wikipedia",
            kangaroo,
        ),
        _item(
            "kangaroo:height",
            "How tall can a large male red kangaroo be?",
            ("2 metres", "1 metre", "3.5 metres", "5 metres"),
            "Morphology",
            "Wikipedia",
            kangaroo,
        ),
        _item(
            "kangaroo:rufus",
            "How tall can Osphranter rufus, the red kangaroo, stand?",
            ("2 metres", "1 metre", "3.5 metres", "5 metres"),
            "Morphology",
            "Wikipedia",
            kangaroo,
        ),
    ]
    leaks = [(leak.item_id, leak.leaked_item_id) for leak in audit_items(items).leaks]
    assert leaks == [("kangaroo:rufus", "kangaroo:name")]


def test_one_recording_asked_two_different_facts_is_no_duplicate() -> None:
    # Two items on one clip under one topic: the same fact asked twice (the same gold, its
    # number written otherwise) is a duplicate; a count and a description of the notes are two.
    def clip(item_id: str, question: str, gold: str, taxon: str) -> AuditItem:
        about = frozenset({"recording:xc9", f"taxon:{taxon}"})
        content = ItemContent(question, (gold, "x", "y", "z"), 0, "Modulation pattern", "")
        return AuditItem(
            item_id,
            "Xeno-canto",
            content.dimension,
            question,
            content.options,
            0,
            "XC9",
            about,
            content,
        )

    items = [
        clip("a", "How many notes make up one trill of the finch's song?", "About a dozen", "f f"),
        clip(
            "b",
            "How are the notes of the sparrow's trilled song delivered?",
            "As a rapid, evenly spaced series of identical notes",
            "s s",
        ),
        clip("c", "Roughly how many notes does one trill of the finch hold?", "About 12", "f f"),
    ]
    assert [sorted(c) for c in audit_items(items).duplicates] == [["a", "c"]]


def _clusters(items: list[AuditItem]) -> list[list[str]]:
    return sorted(sorted(cluster) for cluster in audit_items(items).duplicates)


def test_a_gold_in_other_units_or_a_count_without_its_noun_is_one_fact_twice() -> None:
    """Golds read as quantities: a conversion rounded to its own figures is the same value
    ("20 km" / "12 miles"), and a bare count is the count of what its stem asks ("Six" where
    the stem asks how many pups is "6 pups"); the same number of other things is another fact,
    and so is another distance."""
    wolf = frozenset({"text:title:Wolf"})
    items = [
        _item(
            "wolf:km",
            "How far does a wolf pack travel in a day?",
            ("About 20 km a day", "About 2 km a day", "About 200 km a day", "About 20 km a week"),
            "Behavior",
            "Wikipedia",
            wolf,
        ),
        _item(
            "wolf:miles",
            "Roughly how many miles does a wolf pack cover each day?",
            ("About 12 miles", "About 1 mile", "About 60 miles", "About 120 miles"),
            "Behavior",
            "Wikipedia",
            wolf,
        ),
        _item(
            "wolf:disperse",
            "How far can a young wolf disperse from its pack?",
            ("About 50 km", "About 5 km", "About 500 km", "About 5,000 km"),
            "Behavior",
            "Wikipedia",
            wolf,
        ),
        _item(
            "wolf:pups",
            "How many pups does a wolf litter hold?",
            ("Six", "Two", "Twelve", "Twenty"),
            "Behavior",
            "Wikipedia",
            wolf,
        ),
        _item(
            "wolf:pups-digit",
            "How many pups are born in a wolf litter on average?",
            ("6 pups", "2 pups", "12 pups", "20 pups"),
            "Behavior",
            "Wikipedia",
            wolf,
        ),
        _item(
            "wolf:pack-size",
            "How many wolves make up an average pack?",
            ("6 wolves", "2 wolves", "20 wolves", "60 wolves"),
            "Behavior",
            "Wikipedia",
            wolf,
        ),
    ]
    assert _clusters(items) == [["wolf:km", "wolf:miles"], ["wolf:pups", "wolf:pups-digit"]]
    flag = audit_flags(audit_items(items))["wolf:miles"][0]
    assert flag.message == (
        "Says the same thing as wolf:km (the golds 'About 20 km a day' / 'About 12 miles';"
        " about title:Wolf)"
    )


def test_a_gold_that_the_other_item_states_is_one_fact_twice() -> None:
    """Each gold stated by the other item's stem and gold, phrase by phrase: the liger's two
    parents asked at once and one parent asked given the other are one fact; the tigon (the
    same words, the roles swapped) is another, and so is another season's prey."""
    lion = frozenset({"text:title:Lion"})
    items = [
        _item(
            "liger:parents",
            "What is a liger a hybrid of?",
            ("A male lion and a female tiger", "A male tiger and a female lion", "x", "y"),
            "Taxonomy",
            "Wikipedia",
            lion,
        ),
        _item(
            "liger:father",
            "A liger is the offspring of a female tiger and which other animal?",
            ("A male lion", "A male leopard", "A male jaguar", "A male cougar"),
            "Taxonomy",
            "Wikipedia",
            lion,
        ),
        _item(
            "tigon:father",
            "A tigon is the offspring of a female lion and which other animal?",
            ("A male tiger", "A male leopard", "A male jaguar", "A male cougar"),
            "Taxonomy",
            "Wikipedia",
            lion,
        ),
        _item(
            "lion:dry",
            "What do lions mostly eat in the dry season?",
            ("Zebra and wildebeest", "Fish", "Fruit", "Insects"),
            "Diet",
            "Wikipedia",
            lion,
        ),
        _item(
            "lion:wet",
            "What do lions mostly eat in the wet season?",
            ("Buffalo and wildebeest", "Fish", "Fruit", "Insects"),
            "Diet",
            "Wikipedia",
            lion,
        ),
    ]
    assert _clusters(items) == [["liger:father", "liger:parents"]]


def test_a_long_gold_worded_with_a_word_more_or_less_is_one_fact_twice() -> None:
    """Two long golds of one text and dimension that differ only by words added or left out
    ("launched", "onto prey") say one thing; a word put in another's place ("lower" for
    "greater") says another."""
    paper = frozenset({"text:doi:10.1/kestrel"})
    items = [
        _item(
            "kestrel:attack",
            "When hunting, what do adult kestrels tend to use?",
            ("Steep dives launched from greater heights", "Hovering", "Perching", "Gliding"),
            "Result Interpretation",
            "bioRxiv",
            paper,
        ),
        _item(
            "kestrel:attack-again",
            "Which attack do adult kestrels prefer when hunting voles?",
            ("Steep dives from greater heights onto prey", "Hovering", "Perching", "Gliding"),
            "Result Interpretation",
            "bioRxiv",
            paper,
        ),
        _item(
            "kestrel:young",
            "Which attack do young kestrels prefer when hunting voles?",
            ("Steep dives from lower heights onto prey", "Hovering", "Perching", "Gliding"),
            "Result Interpretation",
            "bioRxiv",
            paper,
        ),
    ]
    assert _clusters(items) == [["kestrel:attack", "kestrel:attack-again"]]


def _leaks(items: list[AuditItem]) -> list[tuple[str, str]]:
    return [(leak.item_id, leak.leaked_item_id) for leak in audit_items(items).leaks]


def test_a_stem_stating_another_gold_in_its_own_wording_leaks_it() -> None:
    """A gold's leading pronoun or article is not looked for ("They roll into a ball" is
    stated by "hedgehogs roll into a ball"); a long gold is stated by a stem holding all its
    content words in another order; a count by its number before the words the other stem
    counts ("13 thoracic vertebrae" answers "how many thoracic vertebrae?"). A stem holding only
    some of them, or the number before other words, states nothing."""
    hedgehog = frozenset({"text:title:Hedgehog"})
    voles = frozenset({"text:doi:10.1/voles"})
    items = [
        _item(
            "hedgehog:noise",
            "How do hedgehogs respond to a sudden noise?",
            ("They roll into a ball", "They run away", "They hiss", "They freeze"),
            "Behavior",
            "Wikipedia",
            hedgehog,
        ),
        _item(
            "hedgehog:spines",
            "Since hedgehogs roll into a ball in response to a sudden noise, what protects them?",
            ("Their spines", "Their fur", "Their claws", "Their teeth"),
            "Behavior",
            "Wikipedia",
            hedgehog,
        ),
        _item(
            "hedgehog:vertebrae",
            "How many thoracic vertebrae does a hedgehog have?",
            ("15", "13", "12", "7"),
            "Morphology",
            "Wikipedia",
            hedgehog,
        ),
        _item(
            "hedgehog:curl",
            "Hedgehogs have 15 thoracic vertebrae; what does this let a hedgehog do?",
            ("Curl tightly", "Swim", "Climb", "Dig"),
            "Morphology",
            "Wikipedia",
            hedgehog,
        ),
        _item(
            "hedgehog:litter",
            "A hedgehog mother may carry 15 spines per square centimetre; how many thoracic"
            " bones do hedgehog young have at birth?",
            ("The same as adults", "None", "Half", "Twice as many"),
            "Morphology",
            "Wikipedia",
            hedgehog,
        ),
        _item(
            "voles:patches",
            "When food and cover varied together, where did the voles forage more?",
            (
                "Under denser cover, irrespective of food supply",
                "Where food was richer, irrespective of cover",
                "In open ground",
                "Nowhere in particular",
            ),
            "Result Interpretation",
            "bioRxiv",
            voles,
        ),
        _item(
            "voles:inference",
            "Voles foraged more where cover was denser, irrespective of the food supply, when"
            " food and cover varied together. What does this suggest?",
            ("Safety outweighs food", "Food outweighs safety", "Nothing", "Both equally"),
            "Result Interpretation",
            "bioRxiv",
            voles,
        ),
        _item(
            "voles:partial",
            "Voles foraged in denser cover when food varied; what did the authors measure?",
            ("Time spent", "Distance", "Body mass", "Heart rate"),
            "Result Interpretation",
            "bioRxiv",
            voles,
        ),
    ]
    assert sorted(_leaks(items)) == [
        ("hedgehog:curl", "hedgehog:vertebrae"),
        ("hedgehog:spines", "hedgehog:noise"),
        ("voles:inference", "voles:patches"),
    ]


def test_two_records_of_one_interaction_asked_alike_are_one_fact_twice() -> None:
    """A GloBI record beside the species its stem names is one observation of that species'
    interaction, which a self-contained item asks about: two rows recording the same visit,
    asked with the same gold, are one fact; another plant of the bee, or another bee of the
    plant, is another."""

    def visit(item_id: str, question: str, gold: str, row: int, bee: str) -> AuditItem:
        return _item(
            item_id,
            question,
            (gold, "Aquilegia flavescens", "Delphinium nelsonii", "Castilleja rhexifolia"),
            about=frozenset({f"record:bees.tsv#{row}", f"taxon:{bee.casefold()}"}),
        )

    items = [
        visit(
            "bee:a",
            "Which plant is recorded as visited by the bumblebee Bombus flavifrons?",
            "Heuchera cylindrica",
            730,
            "Bombus flavifrons",
        ),
        visit(
            "bee:b",
            "Bombus flavifrons is recorded at the flowers of which plant?",
            "Heuchera cylindrica",
            825,
            "Bombus flavifrons",
        ),
        visit(
            "bee:other-plant",
            "Bombus flavifrons is recorded at the flowers of which plant?",
            "Mertensia ciliata",
            831,
            "Bombus flavifrons",
        ),
        visit(
            "other-bee",
            "Bombus bifarius is recorded at the flowers of which plant?",
            "Heuchera cylindrica",
            840,
            "Bombus bifarius",
        ),
    ]
    assert _clusters(items) == [["bee:a", "bee:b"]]


def test_a_count_of_individuals_counts_what_its_stem_asks() -> None:
    """A generic counted noun ("individuals", "animals") stands for what its stem counts:
    "About 1,100 animals", asked how many lynxes there were, is "About 1,100" asked how many
    lynxes were counted; the same number of rabbits eaten is another fact."""
    lynx = frozenset({"text:title:Iberian lynx"})
    items = [
        _item(
            "lynx:census",
            "How many lynxes were counted in the 2020 lynx census?",
            ("About 1,100", "About 400", "About 90", "About 3,000"),
            "Geographic Distribution",
            "Wikipedia",
            lynx,
        ),
        _item(
            "lynx:census-again",
            "According to the 2020 lynx census, roughly how many lynxes were there?",
            ("About 1,100 animals", "About 400 animals", "About 90 animals", "About 30 animals"),
            "Geographic Distribution",
            "Wikipedia",
            lynx,
        ),
        _item(
            "lynx:rabbits",
            "In the 2020 lynx census year, how many rabbits did the lynxes eat per day?",
            ("About 1,100 animals", "About 40 animals", "About 9 animals", "About 3 animals"),
            "Geographic Distribution",
            "Wikipedia",
            lynx,
        ),
    ]
    assert _clusters(items[:2]) == [["lynx:census", "lynx:census-again"]]
    assert _clusters([items[0], items[2]]) == []


def test_a_globi_stem_leaks_only_what_it_says_of_the_partner_asked() -> None:
    """What a GloBI item asks is its record's partner of the taxa its stem names: a stem that
    names the answer, the place and the study but not that partner speaks of something else
    (the marten's own diet is not who eats the hare there); one naming the hare beside the
    marten states it."""
    asked = "Which animal is recorded eating Lepus europaeus in the Drawa forest near Bielsko?"
    items = [
        _item(
            "marten:hare",
            asked,
            ("Martes martes", "Turdus merula", "Emberiza citrinella", "Sorex araneus"),
            about=frozenset({"record:ash#4", "taxon:lepus europaeus", "taxon:martes martes"}),
        ),
        _item(
            "marten:bird",
            "Which bird is recorded in the diet of the marten Martes martes in the Drawa forest"
            " near Bielsko?",
            ("Garrulus glandarius", "Pica pica", "Ciconia ciconia", "Aquila chrysaetos"),
            about=frozenset({"record:ash#5", "taxon:martes martes"}),
        ),
        _item(
            "marten:hare-leak",
            "Martes martes is recorded eating Lepus europaeus in the Drawa forest near Bielsko;"
            " which bird does it eat there?",
            ("Garrulus glandarius", "Pica pica", "Ciconia ciconia", "Aquila chrysaetos"),
            about=frozenset({"record:ash#6", "taxon:martes martes", "taxon:lepus europaeus"}),
        ),
    ]
    assert _leaks(items) == [("marten:hare-leak", "marten:hare")]


def test_a_pronoun_ending_a_gold_stands_for_what_its_stem_names() -> None:
    """ "They have no effect on it" is stated by "... has no effect on fox barking": the pronoun
    at its end stands for the barking its stem names. A short gold keeps it ("eat it")."""
    fox = frozenset({"text:title:Red fox"})
    items = [
        _item(
            "fox:season",
            "What effect does the season have on fox barking?",
            (
                "It has no effect on it",
                "Foxes bark most in spring",
                "Foxes bark only in winter",
                "d",
            ),
            "Communication",
            "Wikipedia",
            fox,
        ),
        _item(
            "fox:why",
            "Since the season has no effect on fox barking, why do foxes bark?",
            ("To hold their territory", "To call prey", "To mark the season", "To court"),
            "Communication",
            "Wikipedia",
            fox,
        ),
    ]
    assert _leaks(items) == [("fox:why", "fox:season")]
