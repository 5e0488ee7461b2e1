"""GloBI checks over the paper's items and items written over the bundled GloBI tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from checks_support import checked, flags_by_check, globi_table_records, new_item, record

from bagel_studio.core import operations
from bagel_studio.core.checks import check_all, check_item
from bagel_studio.core.model import Severity
from bagel_studio.core.store import Store

PARTICIPANT = "Masked participant identification"
INTERACTION = "Masked interaction type inference"
ASH = "ashForestInteractions__interactions.tsv"
TEMPLATE = "template-dataset__interactions.tsv"
CHANNA = (
    "Animalia | Chordata | Actinopterygii | Anabantiformes | Channidae | Channa | Channa striata"
)
HETEROPNEUSTES = (
    "Animalia | Chordata | Actinopterygii | Siluriformes | Heteropneustidae | Heteropneustes | "
    "Heteropneustes fossilis"
)
PALLISENTIS_Q = (
    "Which taxon is likely to be the host in the interaction with Pallisentis nagpurensis?"
)
PEARSONEMA_Q = (
    "Which taxon is likely to be the host in the interaction where Pearsonema plica is an "
    "endoparasite?"
)


@pytest.fixture(scope="module")
def ash_records(data_dir: Path) -> list[dict[str, object]]:
    return globi_table_records(data_dir / "globi" / ASH) + globi_table_records(
        data_dir / "globi" / TEMPLATE
    )


@pytest.fixture
def ash(ash_records: list[dict[str, object]]) -> Store:
    store = Store.memory()
    store.evidence.add_globi_records(ash_records, None)
    return store


def pallisentis(options: list[str] | None = None) -> object:
    return new_item(
        "globi:pallisentis:0",
        "GloBI",
        PALLISENTIS_Q,
        options
        or ["Cichlidae", "Channa striata", "Heteropneustes fossilis", "Pallisentis nagpurensis"],
        "B",
        PARTICIPANT,
    )


def test_pallisentis_offers_the_stem_taxon_and_mixes_ranks() -> None:
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Pallisentis nagpurensis", "parasite of", "Channa striata", target_path=CHANNA),
            record(
                "Heteropneustes fossilis", "eats", "Chironomidae", row=2, source_path=HETEROPNEUSTES
            ),
        ],
        None,
    )
    flags = checked(store, pallisentis())["globi:pallisentis:0"]
    assert flags["stem-taxon-in-options"].details["options"] == ["D"]
    assert "Pallisentis nagpurensis" in flags["stem-taxon-in-options"].message
    granularity = flags["taxon-granularity"]
    assert granularity.severity is Severity.INFO
    assert "'Cichlidae' (family)" in granularity.message
    # The records place Channa striata in Channidae, so Cichlidae does not contain it.
    assert "taxon-overlap" not in flags
    assert "also-documented" not in flags
    assert "leaky-verb" not in flags  # a participant item may name its interaction


def test_pallisentis_family_option_containing_a_recorded_host_is_also_documented() -> None:
    store = Store.memory()
    cichlid = (
        "Animalia | Chordata | Actinopterygii | Cichliformes | Cichlidae | Oreochromis | "
        "Oreochromis mossambicus"
    )
    # Suppose the loaded records also document a cichlid host: option A is then defensible.
    store.evidence.add_globi_records(
        [
            record("Pallisentis nagpurensis", "parasite of", "Channa striata", target_path=CHANNA),
            record(
                "Pallisentis nagpurensis",
                "parasite of",
                "Oreochromis mossambicus",
                row=7,
                target_path=cichlid,
            ),
        ],
        None,
    )
    flags = checked(store, pallisentis())["globi:pallisentis:0"]
    documented = flags["also-documented"]
    assert documented.details["options"] == ["A"]
    assert documented.details["records"] == ["curated.tsv#7"]
    assert "Oreochromis mossambicus" in documented.message
    assert "curated.tsv row 7" in documented.message


def test_family_beside_its_own_species_overlaps_by_record_lineage() -> None:
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record(
                "Pallisentis nagpurensis",
                "parasite of",
                "Channa striata",
                row=4,
                target_path=CHANNA,
            )
        ],
        None,
    )
    item = pallisentis(["Channidae", "Channa striata", "Heteropneustes fossilis", "Mastacembelus"])
    flags = checked(store, item)["globi:pallisentis:0"]
    overlap = flags["taxon-overlap"]
    assert overlap.details["options"] == ["A", "B"]
    assert overlap.details["records"] == ["curated.tsv#4"]
    assert "A 'Channidae' contains B 'Channa striata'" in overlap.message
    assert "taxon-granularity" not in flags


def test_pearsonema_host_recorded_for_another_option_is_also_documented() -> None:
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Pearsonema plica", "endoparasite of", "Procyon lotor", row=12),
            record("Canis lupus", "host of", "Pearsonema plica", row=40),
            record("Canis lupus", "eats", "Lynx rufus", row=41),
        ],
        None,
    )
    item = new_item(
        "globi:2:0",
        "GloBI",
        PEARSONEMA_Q,
        ["Procyon lotor", "Ursus americanus", "Canis lupus", "Lynx rufus"],
        "A",
        PARTICIPANT,
    )
    flags = checked(store, item)["globi:2:0"]
    documented = flags["also-documented"]
    assert documented.severity is Severity.WARNING
    assert documented.details["options"] == ["C"]
    assert documented.details["records"] == ["curated.tsv#40"]
    assert documented.message == (
        "C 'Canis lupus' is also recorded: Canis lupus host of Pearsonema plica "
        "(curated.tsv row 40)"
    )
    assert set(flags) == {"also-documented"}


def test_pearsonema_without_records_trips_nothing() -> None:
    item = new_item(
        "globi:2:0",
        "GloBI",
        PEARSONEMA_Q,
        ["Procyon lotor", "Ursus americanus", "Canis lupus", "Lynx rufus"],
        "A",
        PARTICIPANT,
    )
    assert checked(Store.memory(), item)["globi:2:0"] == {}


def test_real_table_host_of_the_same_endoparasite_is_also_documented(ash: Store) -> None:
    item = new_item(
        "globi:tri:0",
        "GloBI",
        "Which butterfly is recorded as a host of the wasp Trichogramma brassicae?",
        ["Papilio machaon", "Vanessa atalanta", "Bombus terrestris", "Parus major"],
        "A",
        PARTICIPANT,
        globi_ref=f"{ASH}#2174",
    )
    flags = checked(ash, item)["globi:tri:0"]
    assert flags["also-documented"].details["records"] == [f"{ASH}#2176"]
    assert "Vanessa atalanta has endoparasite Trichogramma brassicae" in (
        flags["also-documented"].message
    )
    assert set(flags) == {"also-documented"}


def test_real_table_species_and_its_subspecies(ash: Store) -> None:
    item = new_item(
        "globi:deer:0",
        "GloBI",
        "Which deer is recorded feeding on Fraxinus excelsior?",
        ["Capreolus capreolus", "Capreolus capreolus italicus", "Cervus elaphus", "Dama dama"],
        "A",
        PARTICIPANT,
    )
    flags = checked(ash, item)["globi:deer:0"]
    collision = flags["subspecies-collision"]
    assert collision.details["options"] == ["A", "B"]
    assert "B 'Capreolus capreolus italicus' is a subspecies of A" in collision.message
    assert "taxon-overlap" not in flags  # the collision is reported once, by its own check


def test_real_table_genus_beside_its_species_and_family_from_rank_columns(ash: Store) -> None:
    genus = new_item(
        "globi:frax:0",
        "GloBI",
        "Which tree does Sitta europaea nest in?",
        ["Fraxinus", "Fraxinus excelsior", "Quercus robur", "Picea abies"],
        "B",
        PARTICIPANT,
    )
    family = new_item(
        "globi:lept:0",
        "GloBI",
        "Which coral is parasitised by the snail Leptoconchus massini?",
        [
            "Coralliophilidae",
            "Leptoconchus massini",
            "Fungia (Verrillofungia) concinna",
            "Herpolitha limax",
        ],
        "C",
        PARTICIPANT,
    )
    flags = checked(ash, genus, family)
    assert "A 'Fraxinus' contains B 'Fraxinus excelsior' (by its name)" in (
        flags["globi:frax:0"]["taxon-overlap"].message
    )
    lept = flags["globi:lept:0"]
    assert lept["taxon-overlap"].details["records"] == [f"{TEMPLATE}#10"]
    assert lept["stem-taxon-in-options"].details["options"] == ["B"]
    # Herpolitha limax hosts another Leptoconchus: not evidence for this snail.
    assert "also-documented" not in lept


def test_flower_visit_stem_with_several_recorded_visitors(ash: Store) -> None:
    item = new_item(
        "globi:cent:0",
        "GloBI",
        "Which insect visits flowers of Centaurea jacea?",
        ["Apis mellifera", "Maniola jurtina", "Parus major", "Sitta europaea"],
        "A",
        PARTICIPANT,
    )
    flags = checked(ash, item)["globi:cent:0"]
    under = flags["underspecified-interaction"]
    assert under.details["options"] == ["A", "B"]
    assert f"{ASH}#2150" in under.details["records"]
    assert flags["also-documented"].details["options"] == ["B"]


def test_vague_interaction_option_beside_the_specific_one() -> None:
    item = new_item(
        "globi:bee:0",
        "GloBI",
        "What is the relationship of Bombus terrestris to Fraxinus excelsior?",
        ["visits flowers of", "pollinates", "parasite of", "has habitat"],
        "B",
        INTERACTION,
    )
    flags = checked(Store.memory(), item)["globi:bee:0"]
    under = flags["underspecified-interaction"]
    assert under.details["options"] == ["A", "B"]
    assert "A 'visits flowers of' is a vague reading of B 'pollinates'" in under.message


def test_leaky_verb_in_a_masked_interaction_stem() -> None:
    item = new_item(
        "globi:leak:0",
        "GloBI",
        "Dendrocopos major eats insects living in Fraxinus excelsior; how does it interact "
        "with the tree?",
        ["nests in", "eats", "parasite of", "pollinates"],
        "A",
        INTERACTION,
    )
    flags = checked(Store.memory(), item)["globi:leak:0"]
    assert flags["leaky-verb"].details["words"] == ["eats"]
    assert '"eats"' in flags["leaky-verb"].message


def test_interaction_options_documented_between_the_two_taxa(ash: Store) -> None:
    item = new_item(
        "globi:roe:0",
        "GloBI",
        "What is the ecological relationship of Capreolus capreolus to Fraxinus excelsior?",
        ["eats", "parasite of", "nests in", "interacts with"],
        "A",
        INTERACTION,
        globi_ref=f"{ASH}#1816",
    )
    flags = checked(ash, item)["globi:roe:0"]
    documented = flags["also-documented"]
    assert documented.details["options"] == ["D"]
    assert documented.details["records"] == [f"{ASH}#5664"]


def test_clean_globi_items_trip_nothing(ash: Store) -> None:
    participant = new_item(
        "globi:clean:0",
        "GloBI",
        "Which bird is recorded nesting in Fraxinus excelsior?",
        ["Picus viridis", "Bombus terrestris", "Vanessa atalanta", "Trichogramma brassicae"],
        "A",
        PARTICIPANT,
        globi_ref=f"{ASH}#3082",
    )
    interaction = new_item(
        "globi:clean:1",
        "GloBI",
        "What is the relationship of Leptoconchus massini to Herpolitha limax?",
        ["parasite of", "nests in", "eats", "has habitat"],
        "A",
        INTERACTION,
    )
    flags = checked(ash, participant, interaction)
    assert flags == {"globi:clean:0": {}, "globi:clean:1": {}}


def test_single_item_check_agrees_with_check_all(ash: Store) -> None:
    item = new_item(
        "globi:tri:1",
        "GloBI",
        "Which butterfly is recorded as a host of the wasp Trichogramma brassicae?",
        [
            "Papilio machaon",
            "Vanessa atalanta",
            "Capreolus capreolus",
            "Capreolus capreolus italicus",
        ],
        "A",
        PARTICIPANT,
        globi_ref=f"{ASH}#2174",
    )
    ash.items.add_items([item], None)
    check_all(ash)  # one item: below the bulk threshold, records are queried
    bulk = flags_by_check(ash, "globi:tri:1")
    single = {f.check: f for f in check_item(ash, ash.items.get("globi:tri:1"))}
    assert bulk == single
    assert {"also-documented", "subspecies-collision"} <= set(single)


def test_editing_an_item_rechecks_it(ash: Store) -> None:
    item = new_item(
        "globi:deer:1",
        "GloBI",
        "Which deer is recorded feeding on Fraxinus excelsior?",
        ["Capreolus capreolus", "Capreolus capreolus italicus", "Cervus elaphus", "Dama dama"],
        "A",
        PARTICIPANT,
    )
    assert "subspecies-collision" in checked(ash, item)["globi:deer:1"]
    content = ash.items.get("globi:deer:1").content
    operations.edit(
        ash,
        "globi:deer:1",
        "ana",
        content.with_changes(
            options=("Capreolus capreolus", "Sus scrofa", "Cervus elaphus", "Dama dama")
        ),
    )
    assert "subspecies-collision" not in flags_by_check(ash, "globi:deer:1")
    operations.undo(ash, "ana")
    assert "subspecies-collision" in flags_by_check(ash, "globi:deer:1")


def test_the_stem_taxons_predator_offered_as_its_food_is_supported_by_nothing(
    ash: Store,
) -> None:
    # ash rows 45: Pseudochermes fraxini eats Fraxinus excelsior; 46: Exochomus
    # quadripustulatus eats Pseudochermes fraxini. The ladybird eats the scale insect: it is no
    # food of it, though a record links the two by "eats" and the generator's spans name it.
    item = new_item(
        "globi:scale:0",
        "GloBI",
        "Which plant does the ash scale insect Pseudochermes fraxini feed on?",
        [
            "Fraxinus excelsior",
            "Exochomus quadripustulatus",
            "Picea abies",
            "Pinus sylvestris",
        ],
        "A",
        PARTICIPANT,
        globi_ref=f"{ASH}#45",
        source={"summary": "Pseudochermes fraxini eats Fraxinus excelsior."},
        supporting_evidence=(
            "Pseudochermes fraxini eats Fraxinus excelsior",
            "Exochomus quadripustulatus eats Pseudochermes fraxini",
        ),
    )
    assert checked(ash, item)["globi:scale:0"] == {}


def test_a_gold_the_linked_record_states_in_other_words_is_supported(ash: Store) -> None:
    # ash row 1449: Vulpes vulpes eats Microtus arvalis; the summary says "preys on".
    interaction = new_item(
        "globi:fox:noun",
        "GloBI",
        "What is the relation of the red fox Vulpes vulpes to the common vole Microtus arvalis?",
        ["Predation", "Parasitism", "Mutualism", "Commensalism"],
        "A",
        INTERACTION,
        globi_ref=f"{ASH}#1449",
        source={"summary": "The red fox preys on common voles in north-eastern Poland."},
    )
    # The summary the generator was shown is about another record (the fox and the field vole).
    other_summary = new_item(
        "globi:fox:other",
        "GloBI",
        "Which vole is recorded in the diet of the red fox Vulpes vulpes in north-eastern Poland?",
        ["Microtus arvalis", "Sciurus vulgaris", "Lepus europaeus", "Sorex araneus"],
        "A",
        PARTICIPANT,
        globi_ref=f"{ASH}#1449",
        source={"summary": "Vulpes vulpes eats Microtus agrestis; north-eastern Poland."},
    )
    wrong = new_item(
        "globi:fox:wrong",
        "GloBI",
        "What is the relation of the red fox Vulpes vulpes to the common vole Microtus arvalis?",
        ["Pollination", "Parasitism", "Mutualism", "Predation"],
        "A",
        INTERACTION,
        globi_ref=f"{ASH}#1449",
    )
    flags = checked(ash, interaction, other_summary, wrong)
    assert "unsupported-gold" not in flags["globi:fox:noun"]
    assert "unsupported-gold" not in flags["globi:fox:other"]
    contradicted = flags["globi:fox:wrong"]["unsupported-gold"]
    assert "not what the linked GloBI record says" in contradicted.message
    assert f"Vulpes vulpes eats Microtus arvalis ({ASH}#1449)" in contradicted.message


def test_found_on_is_documented_evidence_for_parasite_of() -> None:
    # GloBI maps the wording "found on" to "adjacent to"; an ectoparasite is both.
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Ixodes ricinus", "has host", "Capreolus capreolus", row=1),
            record("Ixodes ricinus", "found on", "Cervus elaphus", row=2),
            record("Ixodes ricinus", "co-occurs with", "Sus scrofa", row=3),
        ],
        None,
    )
    item = new_item(
        "globi:tick:0",
        "GloBI",
        "The castor bean tick Ixodes ricinus is recorded on which mammal as its host?",
        ["Capreolus capreolus", "Cervus elaphus", "Sus scrofa", "Lepus europaeus"],
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    documented = checked(store, item)["globi:tick:0"]["also-documented"]
    assert documented.details["options"] == ["B"]
    assert "Ixodes ricinus found on Cervus elaphus (curated.tsv row 2)" in documented.message


def test_order_family_options_and_a_bare_order_beside_its_family() -> None:
    store = Store.memory()
    noctuid = (
        "Animalia | Arthropoda | Insecta | Lepidoptera | Noctuidae | Agrotis | Agrotis segetum"
    )
    store.evidence.add_globi_records(
        [record("Parus major", "eats", "Agrotis segetum", row=3, target_path=noctuid)], None
    )
    written = new_item(
        "globi:tit:0",
        "GloBI",
        "Which insects does the great tit Parus major feed its nestlings?",
        ["Lepidoptera: Noctuidae", "Lepidoptera", "Coleoptera: Carabidae", "Diptera: Syrphidae"],
        "A",
        PARTICIPANT,
    )
    bare = new_item(
        "globi:tit:1",
        "GloBI",
        "Which insects does the great tit Parus major feed its nestlings?",
        ["Noctuidae", "Lepidoptera", "Carabidae", "Syrphidae"],
        "A",
        PARTICIPANT,
    )
    flags = checked(store, written, bare)
    by_name = flags["globi:tit:0"]["taxon-overlap"]
    assert by_name.details["options"] == ["A", "B"]
    assert "B 'Lepidoptera' contains A 'Lepidoptera: Noctuidae' (by its name)" in by_name.message
    by_lineage = flags["globi:tit:1"]["taxon-overlap"]
    assert by_lineage.details["options"] == ["A", "B"]
    assert by_lineage.details["records"] == ["curated.tsv#3"]
    single = {f.check: f for f in check_item(store, store.items.get("globi:tit:1"))}
    assert single["taxon-overlap"] == by_lineage


def test_has_host_beside_parasite_of_is_a_vague_reading() -> None:
    item = new_item(
        "globi:lept:vague",
        "GloBI",
        "What is the relationship of Leptoconchus massini to Herpolitha limax?",
        ["parasite of", "has host", "eats", "nests in"],
        "A",
        INTERACTION,
    )
    under = checked(Store.memory(), item)["globi:lept:vague"]["underspecified-interaction"]
    assert under.details["options"] == ["A", "B"]
    assert "B 'has host' is a vague reading of A 'parasite of'" in under.message


def test_a_taxon_outside_the_group_the_stem_names_is_no_answer(ash: Store) -> None:
    # ash rows 3142: Dendrocopos major eats Geometridae; 3133: ... eats Aphididae; 3144: ...
    # eats Noctuidae. An aphid is eaten too, but is no answer to "which moth family".
    item = new_item(
        "globi:woodpecker:moths",
        "GloBI",
        "Which moth family is recorded in the diet of the great spotted woodpecker Dendrocopos "
        "major?",
        [
            "Lepidoptera: Geometridae",
            "Hemiptera: Aphididae",
            "Lepidoptera: Noctuidae",
            "Diptera: Syrphidae",
        ],
        "A",
        PARTICIPANT,
        globi_ref=f"{ASH}#3142",
    )
    documented = checked(ash, item)["globi:woodpecker:moths"]["also-documented"]
    assert documented.details["options"] == ["C"]  # the other moth family, not the aphids


def test_a_gold_that_words_the_relation_is_read_by_its_verbs(ash: Store) -> None:
    feeds = new_item(
        "globi:fox:words",
        "GloBI",
        "What does the record of the red fox Vulpes vulpes and the vole Microtus arvalis say?",
        ["The fox feeds on the vole", "The fox nests in the vole's burrow", "Nothing", "Both"],
        "A",
        INTERACTION,
        globi_ref=f"{ASH}#1449",
    )
    nests = new_item(
        "globi:fox:nests",
        "GloBI",
        "What does the record of the red fox Vulpes vulpes and the vole Microtus arvalis say?",
        ["The fox nests in the vole's burrow", "The fox feeds on the vole", "Nothing", "Both"],
        "A",
        INTERACTION,
        globi_ref=f"{ASH}#1449",
    )
    flags = checked(ash, feeds, nests)
    assert "unsupported-gold" not in flags["globi:fox:words"]
    assert (
        "Vulpes vulpes eats Microtus arvalis"
        in flags["globi:fox:nests"]["unsupported-gold"].message
    )


def test_a_record_label_the_table_does_not_know_is_read_by_its_words() -> None:
    # A source's own wording ("mutualistically interacts with", "parasitically lives on") names
    # the relation in its words, as a gold in free words does.
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Bombus hortorum", "mutualistically interacts with", "Trifolium pratense"),
            record("Varroa destructor", "parasitically lives on", "Apis mellifera", row=2),
        ],
        None,
    )
    mutualism = new_item(
        "globi:bumblebee:type",
        "GloBI",
        "How do the bumblebee Bombus hortorum and red clover Trifolium pratense interact?",
        ["Mutualism, in which both benefit", "Predation on the clover", "Competition", "None"],
        "A",
        INTERACTION,
        globi_ref="curated.tsv#1",
    )
    predation = new_item(
        "globi:bumblebee:wrong",
        "GloBI",
        "How do the bumblebee Bombus hortorum and red clover Trifolium pratense interact?",
        ["Predation on the clover", "Mutualism, in which both benefit", "Competition", "None"],
        "A",
        INTERACTION,
        globi_ref="curated.tsv#1",
    )
    mite = new_item(
        "globi:mite:type",
        "GloBI",
        "What is the relation of the mite Varroa destructor to the honey bee Apis mellifera?",
        ["Parasitism", "Mutualism", "Pollination", "Commensalism"],
        "A",
        INTERACTION,
        globi_ref="curated.tsv#2",
    )
    flags = checked(store, mutualism, predation, mite)
    assert "unsupported-gold" not in flags["globi:bumblebee:type"]
    assert "unsupported-gold" not in flags["globi:mite:type"]
    wrong = flags["globi:bumblebee:wrong"]["unsupported-gold"]
    assert "mutualistically interacts with" in wrong.message


def test_one_taxon_offered_twice_is_not_two_answers_to_a_vague_stem() -> None:
    store = Store.memory()
    store.evidence.add_globi_records(
        [record("Myotis myotis", "host of", "Penicillidia dufourii", row=1)], None
    )
    item = new_item(
        "globi:myotis:twice",
        "GloBI",
        "Which bat fly was recorded on the greater mouse-eared bat Myotis myotis?",
        ["Penicillidia dufourii", "Penicillidia dufourii", "Musca domestica", "Apis mellifera"],
        "A",
        PARTICIPANT,
    )
    flags = checked(store, item)["globi:myotis:twice"]
    assert "options-not-distinct" in flags
    assert "underspecified-interaction" not in flags


def test_a_stem_that_names_the_place_asks_about_the_records_of_that_place() -> None:
    store = Store.memory()
    flies = [
        record("Rousettus aegyptiacus", "host of", "Eucampsipoda africana", row=1),
        record("Rousettus aegyptiacus", "host of", "Penicillidia fulvida", row=2),
    ]
    flies.append(record("Rousettus aegyptiacus", "host of", "Eucampsipoda africana", row=3))
    flies[0]["record"] = {"localityName": "Faucon cave, Gabon"}
    flies[1]["record"] = {"localityName": "Belinga cave, Gabon"}
    flies[2]["record"] = {"localityName": "Gabon"}
    store.evidence.add_globi_records(flies, None)
    options = ["Eucampsipoda africana", "Penicillidia fulvida", "Musca domestica", "Apis mellifera"]
    here = new_item(
        "globi:rousettus:here",
        "GloBI",
        "Which bat fly was recorded on Rousettus aegyptiacus in Faucon cave?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    anywhere = new_item(
        "globi:rousettus:anywhere",
        "GloBI",
        "Which bat fly was recorded on Rousettus aegyptiacus?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    region = new_item(
        "globi:rousettus:region",
        "GloBI",
        "Which bat fly was recorded on Rousettus aegyptiacus in Gabon?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#3",
    )
    flags = checked(store, here, anywhere, region)
    assert "underspecified-interaction" not in flags["globi:rousettus:here"]
    # both caves are in Gabon: a record's place within the stem's fits it
    assert "underspecified-interaction" in flags["globi:rousettus:region"]
    assert flags["globi:rousettus:anywhere"]["underspecified-interaction"].details["options"] == [
        "A",
        "B",
    ]


def test_a_word_no_record_knows_as_a_taxon_mixes_no_ranks() -> None:
    # "Coyote (Canis latrans)" or "Photosynthesis" is no higher taxon; "Cichlidae" is one by its
    # family ending, "Mustela" by the records that name it.
    store = Store.memory()
    store.evidence.add_globi_records([record("Mustela", "eats", "Microtus arvalis")], None)
    stem = "Which taxon eats Microtus arvalis in the records?"
    items = [
        new_item(
            "globi:words:coyote",
            "GloBI",
            stem,
            ["Canis latrans", "Coyote (Canis latrans)", "Ursus arctos", "Canis lupus"],
            "A",
            PARTICIPANT,
        ),
        new_item(
            "globi:words:absurd",
            "GloBI",
            stem,
            ["Photosynthesis", "Canis lupus", "Vulpes vulpes", "Ursus arctos"],
            "B",
            PARTICIPANT,
        ),
        new_item(
            "globi:words:family",
            "GloBI",
            stem,
            ["Cichlidae", "Canis lupus", "Vulpes vulpes", "Ursus arctos"],
            "B",
            PARTICIPANT,
        ),
        new_item(
            "globi:words:recorded",
            "GloBI",
            stem,
            ["Mustela", "Canis lupus", "Vulpes vulpes", "Ursus arctos"],
            "A",
            PARTICIPANT,
        ),
    ]
    flags = checked(store, *items)
    assert "taxon-granularity" not in flags["globi:words:coyote"]
    assert "taxon-granularity" not in flags["globi:words:absurd"]
    assert "taxon-granularity" in flags["globi:words:family"]
    assert "taxon-granularity" in flags["globi:words:recorded"]


def test_an_option_of_another_rank_than_the_stem_asks_is_no_answer() -> None:
    # The shrew is recorded eating an order and a class too, but "which family" asks a family:
    # an order or a class is no answer to it, whatever the records link it to.
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Sorex araneus", "eats", "Carabidae", row=1),
            record("Sorex araneus", "eats", "Araneae", row=2),
            record("Sorex araneus", "eats", "Gastropoda", row=3),
            record("Sorex araneus", "eats", "Lumbricidae", row=4),
        ],
        None,
    )
    asked = new_item(
        "globi:shrew:family",
        "GloBI",
        "Which family of ground beetles is recorded in the diet of the shrew Sorex araneus?",
        ["Coleoptera: Carabidae", "Araneae", "Gastropoda", "Lumbricidae"],
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    unasked = new_item(
        "globi:shrew:taxon",
        "GloBI",
        "Which prey is recorded in the diet of the shrew Sorex araneus?",
        ["Coleoptera: Carabidae", "Araneae", "Gastropoda", "Helix pomatia"],
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, asked, unasked)
    family = flags["globi:shrew:family"]["also-documented"]
    assert family.details["options"] == ["D"]  # the other family; not the order or the class
    assert "D 'Lumbricidae' is also recorded: Sorex araneus eats Lumbricidae" in family.message
    assert flags["globi:shrew:taxon"]["also-documented"].details["options"] == ["B", "C"]


def test_a_pair_of_species_written_with_a_slash_is_one_taxon() -> None:
    # GloBI tables name a species pair the source could not tell apart "Genus a/b".
    store = Store.memory()
    store.evidence.add_globi_records(
        [record("Pterois volitans/miles", "eats", "Stegastes partitus", row=1)], None
    )
    item = new_item(
        "globi:lionfish:self",
        "GloBI",
        "Which damselfish is recorded in the diet of the lionfish Pterois volitans/miles?",
        ["Stegastes partitus", "Pterois volitans/miles", "Chromis cyanea", "Abudefduf saxatilis"],
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flag = checked(store, item)["globi:lionfish:self"]["stem-taxon-in-options"]
    assert flag.details["options"] == ["B"]
    assert "B 'Pterois volitans/miles'" in flag.message


def _family_record(source: str, source_family: str, target: str, row: int) -> dict[str, object]:
    # a table that gives each taxon's family in a column of its own, and no other rank
    found = record(source, "preys on", target, table="families.tsv", row=row)
    found["record"] = {
        "sourceTaxonName": source,
        "sourceTaxonFamilyName": source_family,
        "interactionTypeName": "preys on",
        "targetTaxonName": target,
        "targetTaxonFamilyName": "Fagaceae",
    }
    return found


def test_a_family_column_alone_places_a_taxon_in_its_family() -> None:
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            _family_record("Curculio glandium", "Curculionidae", "Quercus robur", 1),
            _family_record("Cydia splendana", "Tortricidae", "Quercus robur", 2),
        ],
        None,
    )
    overlap = new_item(
        "globi:acorn:overlap",
        "GloBI",
        "Which seed predator is recorded attacking the acorns of Quercus robur?",
        ["Curculio glandium", "Coleoptera: Curculionidae", "Pachymerus nucleorum", "Apis cerana"],
        "A",
        PARTICIPANT,
        globi_ref="families.tsv#1",
    )
    family = new_item(
        "globi:acorn:family",
        "GloBI",
        "To which family does Curculio glandium, a seed predator of Quercus robur, belong?",
        [
            "Coleoptera: Curculionidae",
            "Lepidoptera: Tortricidae",
            "Coleoptera: Chrysomelidae",
            "Lepidoptera: Sesiidae",
        ],
        "A",
        PARTICIPANT,
        globi_ref="families.tsv#1",
    )
    flags = checked(store, overlap, family)
    found = flags["globi:acorn:overlap"]["taxon-overlap"]
    assert found.details["options"] == ["A", "B"]
    assert "B 'Coleoptera: Curculionidae' contains A 'Curculio glandium'" in found.message
    assert found.details["records"] == ["families.tsv#1"]
    # the family holds the gold itself: no other record makes it right
    assert "also-documented" not in flags["globi:acorn:overlap"]
    # a stem asking the family of its own taxon: what else eats the acorns is no answer
    assert "unsupported-gold" not in flags["globi:acorn:family"]
    assert "also-documented" not in flags["globi:acorn:family"]


def test_a_common_name_is_no_rank() -> None:
    # a table that names its taxa by common names: "Moose" is a record's taxon, not a genus
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Grey wolf", "eats", "Moose", table="common.tsv", row=1),
            record("Grey wolf", "eats", "Beaver", table="common.tsv", row=2),
        ],
        None,
    )
    item = new_item(
        "globi:wolf:common",
        "GloBI",
        "Which prey is recorded in the diet of the grey wolf in Ontario?",
        ["Beaver", "Moose", "Red squirrel", "Snowshoe hare"],
        "A",
        PARTICIPANT,
        globi_ref="common.tsv#2",
    )
    assert "taxon-granularity" not in checked(store, item)["globi:wolf:common"]


def test_a_vague_interaction_in_words_beside_a_specific_one() -> None:
    item = new_item(
        "globi:bruchus:vague",
        "GloBI",
        "How is the beetle Bruchus rufimanus related to the broad bean Vicia faba?",
        [
            "It interacts with it",
            "It attacks its seeds",
            "It nests inside its roots",
            "It disperses its pollen",
        ],
        "B",
        INTERACTION,
    )
    under = checked(Store.memory(), item)["globi:bruchus:vague"]["underspecified-interaction"]
    assert under.details["options"] == ["A", "B"]
    assert "A 'It interacts with it' is a vague reading" in under.message


def test_a_stem_asking_what_has_a_host_leaves_the_interaction_open() -> None:
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Ancylostoma duodenale", "parasite of", "Pan troglodytes", row=1),
            record("Strongyloides fuelleborni", "parasite of", "Pan troglodytes", row=2),
        ],
        None,
    )
    item = new_item(
        "globi:chimp:host",
        "GloBI",
        "Which of these organisms has the chimpanzee (Pan troglodytes) as a host?",
        [
            "Ancylostoma duodenale",
            "Strongyloides fuelleborni",
            "Plasmodium vivax",
            "Fasciola hepatica",
        ],
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    under = checked(store, item)["globi:chimp:host"]["underspecified-interaction"]
    assert under.details["options"] == ["A", "B"]
    assert '"has the chimpanzee (Pan troglodytes) as a host" leaves the interaction open' in (
        under.message
    )


def test_a_stem_asking_the_most_often_recorded_partner_flags_only_one_recorded_as_often() -> None:
    # the records link two of the options to the stem's taxon: the gold five times, another
    # once; "most often" is asked, so the other is no second answer, until it is as common
    rows = [
        record("Valeriana sitchensis", "flowers visited by", "Thricops innocuus", row=n)
        for n in range(1, 6)
    ]
    rows.append(record("Valeriana sitchensis", "flowers visited by", "Bombus mixtus", row=9))
    store = Store.memory()
    store.evidence.add_globi_records(rows, None)
    options = ["Thricops innocuus", "Bombus mixtus", "Eristalis tenax", "Apis mellifera"]
    most = new_item(
        "globi:most:0",
        "GloBI",
        "Which insect is most often recorded at the flowers of Valeriana sitchensis?",
        options,
        "A",
        PARTICIPANT,
    )
    plain = new_item(
        "globi:most:1",
        "GloBI",
        "Which insect is recorded at the flowers of Valeriana sitchensis?",
        options,
        "A",
        PARTICIPANT,
    )
    flags = checked(store, most, plain)
    assert "also-documented" not in flags["globi:most:0"]
    assert flags["globi:most:1"]["also-documented"].details["options"] == ["B"]
    store.evidence.add_globi_records(
        [
            record("Valeriana sitchensis", "flowers visited by", "Bombus mixtus", row=n)
            for n in range(20, 25)
        ],
        None,
    )
    as_often = checked(store, most)["globi:most:0"]
    assert as_often["also-documented"].details["options"] == ["B"]


def test_a_family_beside_a_species_of_its_type_genus_overlaps_without_a_lineage() -> None:
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Vulpes vulpes", "eats", "Turdus merula", row=1),
            record("Vulpes vulpes", "eats", "Turdidae", row=2),
            record("Vulpes vulpes", "eats", "Sturnus vulgaris", row=3),
        ],
        None,
    )
    family = new_item(
        "globi:fox:thrush",
        "GloBI",
        "Which thrush is recorded as eaten by the red fox Vulpes vulpes?",
        ["Turdus merula", "Turdidae", "Sturnus vulgaris", "Erithacus rubecula"],
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    other = new_item(
        "globi:fox:starling",
        "GloBI",
        "Which starling is recorded as eaten by the red fox Vulpes vulpes?",
        ["Sturnus vulgaris", "Turdidae", "Columba palumbus", "Erithacus rubecula"],
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#3",
    )
    flags = checked(store, family, other)
    overlap = flags["globi:fox:thrush"]["taxon-overlap"]
    assert overlap.details["options"] == ["A", "B"]
    assert "B 'Turdidae' contains A 'Turdus merula'" in overlap.message
    assert "taxon-overlap" not in flags["globi:fox:starling"]  # Sturnus is no Turdus


def test_a_stem_that_names_a_place_asks_about_the_records_of_that_place() -> None:
    store = Store.memory()
    flies = [
        record("Nycteribia kolenatii", "parasiteOf", "Myotis daubentonii", row=1),
        record("Nycteribia kolenatii", "parasiteOf", "Myotis nattereri", row=2),
        record("Nycteribia kolenatii", "parasiteOf", "Myotis nattereri", row=3),
    ]
    flies[0]["record"] = {"localityName": "Norway"}
    flies[1]["record"] = {"localityName": "Austria"}
    flies[2]["record"] = {"localityName": "Hungary"}
    store.evidence.add_globi_records(flies, None)
    options = ["Myotis daubentonii", "Myotis nattereri", "Rousettus aegyptiacus", "Carollia sp."]
    norway = new_item(
        "globi:kolenatii:norway",
        "GloBI",
        "Which bat hosts the bat fly Nycteribia kolenatii in Norway?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    anywhere = new_item(
        "globi:kolenatii:anywhere",
        "GloBI",
        "Which bat hosts the bat fly Nycteribia kolenatii?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, norway, anywhere)
    assert "also-documented" not in flags["globi:kolenatii:norway"]
    assert flags["globi:kolenatii:anywhere"]["also-documented"].details["options"] == ["B"]


def test_the_linked_record_naming_a_distractor_documents_it_where_the_stem_names_no_taxon() -> None:
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Vulpes vulpes", "eats", "Anas platyrhynchos", row=1),
            record("Vulpes vulpes", "eats", "Phasianus colchicus", row=2),
        ],
        None,
    )
    options = ["Anas platyrhynchos", "Anser anser", "Cygnus olor", "Fulica atra"]
    wrong_key = new_item(
        "globi:fox:duck-key",
        "GloBI",
        "Which waterbird is recorded as eaten by the Red fox?",
        options,
        "B",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    right_key = new_item(
        "globi:fox:duck",
        "GloBI",
        "Which waterbird is recorded as eaten by the Red fox?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, wrong_key, right_key)
    documented = flags["globi:fox:duck-key"]["also-documented"]
    assert documented.details["options"] == ["A"]
    assert "curated.tsv row 1" in documented.message
    assert "also-documented" not in flags["globi:fox:duck"]


def test_a_record_name_with_a_note_in_brackets_is_the_name() -> None:
    store = Store.memory()
    fungus = [
        record(
            "Rickia obscura", "hyperparasiteOf", "Nycteribia pedicularia [as N. latreillii]", row=1
        ),
        record("Rickia obscura", "hyperparasiteOf", "Nycteribia schmidlii", row=2),
    ]
    fungus[0]["record"] = {"localityName": "Portugal"}
    fungus[1]["record"] = {"localityName": "Hungary"}
    store.evidence.add_globi_records(fungus, None)
    item = new_item(
        "globi:rickia:key",
        "GloBI",
        "On which bat fly is the fungus Rickia obscura recorded in Portugal?",
        ["Nycteribia pedicularia", "Nycteribia schmidlii", "Basilia nana", "Penicillidia dufouri"],
        "B",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, item)["globi:rickia:key"]
    assert flags["also-documented"].details["options"] == ["A"]
    assert "[as N. latreillii]" in flags["also-documented"].message
    single = {f.check: f for f in check_item(store, store.items.get("globi:rickia:key"))}
    assert single["also-documented"] == flags["also-documented"]


def test_an_option_of_another_rank_than_the_stem_asks_overlaps_no_option() -> None:
    store = Store.memory()
    fly = "Animalia | Arthropoda | Insecta | Diptera | {family} | {genus} | {genus} {epithet}"
    store.evidence.add_globi_records(
        [
            record(
                "Salix alba",
                "flowers visited by",
                "Musca domestica",
                row=1,
                target_path=fly.format(family="Muscidae", genus="Musca", epithet="domestica"),
            ),
            record(
                "Salix alba",
                "flowers visited by",
                "Eristalis tenax",
                row=2,
                target_path=fly.format(family="Syrphidae", genus="Eristalis", epithet="tenax"),
            ),
        ],
        None,
    )
    options = ["Muscidae", "Syrphidae", "Calliphoridae", "Diptera"]
    family = new_item(
        "globi:salix:family",
        "GloBI",
        "Which family of flies is recorded at the flowers of Salix alba?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    taxon = new_item(
        "globi:salix:taxon",
        "GloBI",
        "Which taxon of flies is recorded at the flowers of Salix alba?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, family, taxon)
    assert "taxon-overlap" not in flags["globi:salix:family"]  # an order is no family
    assert flags["globi:salix:taxon"]["taxon-overlap"].details["options"] == ["A", "B", "D"]


def _with_columns(rec: dict[str, object], **columns: str) -> dict[str, object]:
    """A record with the other columns of its table row ("%N" and the like passed as
    ``**{...}``)."""
    rec["record"] = dict(columns)
    return rec


def test_a_stem_asking_the_main_partner_compares_the_amounts_the_records_give() -> None:
    # one record per bee and plant family, each with the family's share of the pollen loads:
    # "main" is asked of the share, not of how many records there are (one each)
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            _with_columns(
                record("Colletes exemplaris", "eats", family, row=row),
                percentOfPollenLoad=share,
                Loads="44",
            )
            for row, family, share in (
                (1, "Ericaceae", "90.8"),
                (2, "Asteraceae", "3.6"),
                (3, "Fabaceae", "5.6"),
            )
        ],
        None,
    )
    options = ["Ericaceae", "Asteraceae", "Fabaceae", "Resedaceae"]
    main = new_item(
        "globi:colletes:main",
        "GloBI",
        "Which plant family is the main pollen source of Colletes exemplaris?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    any_share = new_item(
        "globi:colletes:any",
        "GloBI",
        "Which plant family's pollen is recorded in the loads of Colletes exemplaris?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    minor_key = new_item(
        "globi:colletes:minor-key",
        "GloBI",
        "Which plant family is the main pollen source of Colletes exemplaris?",
        options,
        "B",
        PARTICIPANT,
        globi_ref="curated.tsv#2",
    )
    flags = checked(store, main, any_share, minor_key)
    assert "also-documented" not in flags["globi:colletes:main"]
    assert flags["globi:colletes:any"]["also-documented"].details["options"] == ["B", "C"]
    # keyed to a minor share, the main one is a second (better) answer
    assert flags["globi:colletes:minor-key"]["also-documented"].details["options"] == ["A", "C"]


def test_a_stem_stating_an_amount_of_the_gold_record_asks_which_record_holds_it() -> None:
    store = Store.memory()
    prey = (
        (1, "Macroramphosus sp.", "176", "17.58 [0–37.39]", "1"),
        (2, "Cepola macrophthalma", "256", "25.57 [0–43.77]", "2"),
        (3, "Conger conger", "215", "21.48 [3.1–40.2]", "8"),
    )
    store.evidence.add_globi_records(
        [
            _with_columns(
                record("Tursiops truncatus", "eats", name, row=row),
                **{"N": n, "%N": share, "O": stomachs, "localityName": "Gulf of Cadiz"},
            )
            for row, name, n, share, stomachs in prey
        ],
        None,
    )
    options = ["Macroramphosus sp.", "Cepola macrophthalma", "Conger conger", "Sardina pilchardus"]
    stated = new_item(
        "globi:tursiops:176",
        "GloBI",
        "Which prey of Tursiops truncatus numbered 176 items (17.58% of all prey)?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    unstated = new_item(
        "globi:tursiops:any",
        "GloBI",
        "Which prey is recorded in the stomachs of Tursiops truncatus?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, stated, unstated)
    assert "also-documented" not in flags["globi:tursiops:176"]
    assert flags["globi:tursiops:any"]["also-documented"].details["options"] == ["B", "C"]


def test_a_stem_naming_the_source_of_the_gold_record_asks_about_that_source() -> None:
    lilley = "Lilley, J. H., Cerenius, L., & Söderhäll, K. (1997). RAPD evidence of outbreaks."
    other = "Kozubíková, E., Petrusek, A. et al. (2008). The crayfish plague in Czechia."
    rows = [
        ("Austropotamobius pallipes", lilley, 1),
        ("Astacus astacus", other, 2),
        ("Pontastacus leptodactylus", other, 3),
    ]
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            _with_columns(
                record(crayfish, "hasPathogen", "Aphanomyces astaci", row=row),
                referenceCitation=citation,
            )
            for crayfish, citation, row in rows
        ],
        None,
    )
    options = [
        "Austropotamobius pallipes",
        "Astacus astacus",
        "Pontastacus leptodactylus",
        "Faxonius limosus",
    ]
    named = new_item(
        "globi:astaci:lilley",
        "GloBI",
        "Which crayfish carried the Aphanomyces astaci reported by Lilley and Cerenius?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    anyone = new_item(
        "globi:astaci:any",
        "GloBI",
        "Which crayfish is recorded carrying Aphanomyces astaci?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, named, anyone)
    assert "also-documented" not in flags["globi:astaci:lilley"]
    assert flags["globi:astaci:any"]["also-documented"].details["options"] == ["B", "C"]
    # a record of the same source documents another crayfish
    store.evidence.add_globi_records(
        [
            _with_columns(
                record("Astacus astacus", "hasPathogen", "Aphanomyces astaci", row=4),
                referenceCitation=lilley,
            )
        ],
        None,
    )
    check_all(store, ["globi:astaci:lilley"])
    again = flags_by_check(store, "globi:astaci:lilley")
    assert again["also-documented"].details["options"] == ["B"]


def test_a_stem_naming_a_life_stage_of_the_gold_record_asks_about_that_stage() -> None:
    # "the eggs of" a warbler asks who took its eggs: a bird recorded taking its nestlings
    # answers something else, of a participant as of an interaction
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            _with_columns(record(predator, "eats", prey, row=row), targetLifeStageName=stage)
            for predator, prey, stage, row in (
                ("Pernis apivorus", "Sylvia atricapilla", "shelled egg", 1),
                ("Accipiter gentilis", "Sylvia atricapilla", "nestling", 2),
                ("Garrulus glandarius", "Sylvia atricapilla", "shelled egg", 3),
                ("Sciurus vulgaris", "Fringilla coelebs", "nestling", 4),
                ("Sciurus vulgaris", "Fringilla coelebs", "shelled egg", 5),
            )
        ],
        None,
    )
    options = ["Pernis apivorus", "Accipiter gentilis", "Garrulus glandarius", "Falco tinnunculus"]
    eggs = new_item(
        "globi:sylvia:eggs",
        "GloBI",
        "Which bird is recorded taking the eggs of Sylvia atricapilla?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    anyone = new_item(
        "globi:sylvia:any",
        "GloBI",
        "Which bird is recorded eating Sylvia atricapilla?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    nestlings = new_item(
        "globi:coelebs:nestlings",
        "GloBI",
        "What interaction is recorded between Sciurus vulgaris and nestlings of Fringilla coelebs?",
        ["interacts with", "eats", "pollinates", "has habitat"],
        "B",
        INTERACTION,
        globi_ref="curated.tsv#4",
    )
    flags = checked(store, eggs, anyone, nestlings)
    assert flags["globi:sylvia:eggs"]["also-documented"].details["options"] == ["C"]
    assert flags["globi:sylvia:any"]["also-documented"].details["options"] == ["B", "C"]
    assert "also-documented" not in flags["globi:coelebs:nestlings"]  # row 5 is of eggs
    # a record of the nestlings by the vague interaction documents it
    store.evidence.add_globi_records(
        [
            _with_columns(
                record("Sciurus vulgaris", "interactsWith", "Fringilla coelebs", row=6),
                targetLifeStageName="nestling",
            )
        ],
        None,
    )
    check_all(store, ["globi:coelebs:nestlings"])
    again = flags_by_check(store, "globi:coelebs:nestlings")
    assert again["also-documented"].details["options"] == ["A"]


def test_a_specific_option_the_gold_record_states_beside_a_vague_key_is_underspecified() -> None:
    # the key "interacts with" is vaguer than its own record ("has pathogen"): that is
    # underspecified-interaction's finding, not a second record's; and a pathogen is not
    # said to eat its host
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record("Austropotamobius fulcisianus", "hasPathogen", "Aphanomyces astaci", row=n)
            for n in (1, 2, 3)
        ],
        None,
    )
    item = new_item(
        "globi:fulcisianus:vague",
        "GloBI",
        "How is the crayfish Austropotamobius fulcisianus related to Aphanomyces astaci?",
        ["interacts with", "has pathogen", "eats", "is eaten by"],
        "A",
        INTERACTION,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, item)["globi:fulcisianus:vague"]
    assert "underspecified-interaction" in flags
    assert "also-documented" not in flags


def test_the_gold_offered_twice_is_no_second_documented_answer() -> None:
    store = Store.memory()
    store.evidence.add_globi_records(
        [record("Icosta angustifrons", "ectoParasiteOf", "Circus cinereus", row=1)], None
    )
    item = new_item(
        "globi:icosta:twice",
        "GloBI",
        "Which louse fly is recorded as an ectoparasite of the harrier Circus cinereus?",
        ["Icosta angustifrons", "Icosta angustifrons", "Ornithoica vicina", "Crataerina pallida"],
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, item)["globi:icosta:twice"]
    assert "options-not-distinct" in flags
    assert "also-documented" not in flags


def test_a_fly_named_by_the_noun_before_it_is_a_group_of_flies() -> None:
    # "bat flies" asks a fly (Diptera; or a bat, where "flies" is the verb), not a mite: a mite
    # family recorded on the bat is no answer to it, as it is to a stem asking any parasite
    bat = (
        "Animalia | Chordata | Mammalia | Chiroptera | Pteropodidae | Pteropus | "
        "Pteropus exemplaris"
    )
    store = Store.memory()
    store.evidence.add_globi_records(
        [
            record(
                "Pteropus exemplaris",
                "parasitized by",
                "Nycteribiidae",
                row=1,
                source_path=bat,
                target_path="Animalia | Arthropoda | Insecta | Diptera | Nycteribiidae",
            ),
            record(
                "Pteropus exemplaris",
                "parasitized by",
                "Meristaspis calcarata",
                row=2,
                source_path=bat,
                target_path=(
                    "Animalia | Arthropoda | Arachnida | Mesostigmata | Spinturnicidae | "
                    "Meristaspis | Meristaspis calcarata"
                ),
            ),
        ],
        None,
    )
    options = [
        "Diptera: Nycteribiidae",
        "Mesostigmata: Spinturnicidae",
        "Siphonaptera: Ischnopsyllidae",
        "Diptera: Streblidae",
    ]
    flies = new_item(
        "globi:pteropus:flies",
        "GloBI",
        "Which family of bat flies is recorded parasitizing Pteropus exemplaris?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    parasites = new_item(
        "globi:pteropus:parasites",
        "GloBI",
        "Which family of parasites is recorded parasitizing Pteropus exemplaris?",
        options,
        "A",
        PARTICIPANT,
        globi_ref="curated.tsv#1",
    )
    flags = checked(store, flies, parasites)
    assert "also-documented" not in flags["globi:pteropus:flies"]
    assert flags["globi:pteropus:parasites"]["also-documented"].details["options"] == ["B"]
