"""Taxon names and lineages from the records and from name structure."""

from __future__ import annotations

from bagel_studio.core.checks.interaction_types import Reading, compatible, implies, read_label
from bagel_studio.core.checks.interactions import leaky_words
from bagel_studio.core.taxonomy import (
    SPECIES,
    SUBSPECIES,
    ancestors,
    formed_from_genus,
    lineage_from_columns,
    lineage_from_path,
    name_rank,
    normalize_taxon,
    parse_name,
)


def test_parse_names_of_every_shape() -> None:
    assert name_rank("Channa striata") == SPECIES
    assert name_rank("Capreolus capreolus italicus") == SUBSPECIES
    assert name_rank("Cichlidae") == "family"
    assert name_rank("Anabantiformes") == "order"
    assert name_rank("Fraxinus") is None  # a uninomial of unknown rank
    subgenus = parse_name("Fungia (Cycloseris) costulata")
    assert subgenus is not None and subgenus.canonical == "Fungia costulata"
    author = parse_name("Hymenoscyphus fraxineus (T. Kowalski) Baral")
    assert author is not None and author.canonical == "Hymenoscyphus fraxineus"
    assert normalize_taxon("  Canis   lupus ") == "canis lupus"
    assert normalize_taxon("canis lupus") == "canis lupus"


def test_english_phrases_are_not_names() -> None:
    assert parse_name("The fungus is benefiting at the expense of the tree.") is None
    assert parse_name("Which taxon") is None
    assert parse_name("parasite of") is None
    assert parse_name("Salt lakes and rivers") is None


def test_lineages_from_paths_rank_columns_and_names() -> None:
    path = "Animalia | Chordata | Actinopterygii | Anabantiformes | Channidae | Channa | " + (
        "Channa striata"
    )
    assert lineage_from_path(path)[-3:] == ("Channidae", "Channa", "Channa striata")
    row = {
        "sourceTaxonClassName": "Gastropoda",
        "sourceTaxonFamilyName": "Coralliophilidae",
        "sourceTaxonGenusName": "Leptoconchus",
        "sourceTaxonSpecificEpithetName": "massini",
    }
    assert lineage_from_columns(row, "source") == (
        "Gastropoda",
        "Coralliophilidae",
        "Leptoconchus",
        "Leptoconchus massini",
    )
    found = ancestors("Capreolus capreolus italicus")
    assert found == {"capreolus capreolus": "name", "capreolus": "name"}
    assert ancestors("Channa striata", lineage_from_path(path))["channidae"] == "record"


def test_equivalent_interactions_and_forbidden_words() -> None:
    assert read_label("has endoparasite") == Reading("endoparasite of", flipped=True)
    assert read_label("endoparasite of") == Reading("endoparasite of")
    assert read_label("hasEndoparasite") == read_label("has endoparasite")  # GloBI's own labels
    assert read_label("Host of") == Reading("has host", flipped=True)
    assert read_label("Found on") == Reading("adjacent to")  # GloBI's mapping of the wording
    assert implies("endoparasite of", "parasite of") and implies("parasite of", "has host")
    assert implies("pollinates", "visits flowers of") and not implies("visits flowers of", "eats")
    assert compatible("preys on", "eats") and compatible("adjacent to", "parasite of")
    assert not compatible("pollinates", "parasite of") and not compatible("eats", "has habitat")
    assert read_label("glows near") == Reading("glows near")
    assert implies("glows near", "interacts with") and not compatible("glows near", "eats")
    assert leaky_words("Which predator eats and later parasitizes its prey?") == [
        "predator",
        "eats",
        "parasitizes",
        "prey",
    ]
    assert leaky_words("Which taxon is negatively affected by a fungal organism?") == []


def test_free_words_are_read_generously() -> None:
    from bagel_studio.core.checks.interaction_types import loosely_compatible, types_in

    assert types_in("It lives inside the coral") == ("has habitat",)
    assert loosely_compatible("parasite of", "has habitat")  # an endoparasite lives inside
    assert not compatible("parasite of", "has habitat")  # but a label says more
    assert not loosely_compatible("eats", "nests in")


def test_a_family_named_from_its_type_genus() -> None:
    assert formed_from_genus("Turdidae", "Turdus")  # -us dropped
    assert formed_from_genus("Mustelidae", "Mustela")  # -a
    assert formed_from_genus("Canidae", "Canis")  # -is
    assert formed_from_genus("Passeridae", "Passer")  # the genus whole
    assert formed_from_genus("Corvinae", "Corvus")  # a subfamily as well
    assert formed_from_genus("Rosaceae", "Rosa")  # and a plant family
    assert not formed_from_genus("Turdidae", "Turdoides")  # more than an ending
    assert not formed_from_genus("Corvidae", "Turdus")
    assert not formed_from_genus("Lepidoptera", "Lepidus")  # no family's ending


def test_a_family_from_a_genus_whose_latin_stem_changes() -> None:
    # a third-declension genus's stem is its genitive's: Sorex, Soricis; Anas, Anatis
    assert formed_from_genus("Soricidae", "Sorex")
    assert formed_from_genus("Culicidae", "Culex")
    assert formed_from_genus("Anatidae", "Anas")
    assert formed_from_genus("Hominidae", "Homo")
    assert formed_from_genus("Anatinae", "Anas")
    assert not formed_from_genus("Soricidae", "Sorax")  # another ending
    assert not formed_from_genus("Anatidae", "Anser")
    assert not formed_from_genus("Culicidae", "Culiseta")  # more than an ending
    assert not formed_from_genus("Turdus", "Turdus")


def test_a_note_in_square_brackets_after_a_name_is_no_part_of_it() -> None:
    noted = parse_name("Brachytarsina alluaudi [as Nycteribosca]")
    assert noted is not None and noted.canonical == "Brachytarsina alluaudi"
    wrong = parse_name("Arthrorhynchus nycteribiae [incorrectly identified as Stigmatomyces sp.]")
    assert wrong is not None and wrong.canonical == "Arthrorhynchus nycteribiae"
    assert normalize_taxon("Penicillidia dufouri [as Nycteribia frauenfeldii]") == (
        "penicillidia dufouri"
    )


def test_a_pathogen_is_a_parasite_of_its_host_but_does_not_eat_it() -> None:
    # an infection is no meal: "is eaten by" is not read from a "has pathogen" record, while
    # a parasite (a louse on a bird, a tick) still feeds on its host
    assert implies("pathogen of", "parasite of") and implies("pathogen of", "has host")
    assert not implies("pathogen of", "eats") and not compatible("pathogen of", "eats")
    assert implies("parasite of", "eats") and implies("ectoparasite of", "eats")


def test_a_parasite_inside_or_outside_its_host_is_an_endo_or_ectoparasite() -> None:
    assert read_label("is parasitised internally by") == read_label("has endoparasite")
    assert read_label("parasitizes externally") == Reading("ectoparasite of")
    assert read_label("external parasite of") == Reading("ectoparasite of")
    assert read_label("internally eats") == Reading("internally eats")  # no parasite: unread
