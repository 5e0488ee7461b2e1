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
