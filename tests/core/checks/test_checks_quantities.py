"""Numbers and units as the checks compare them (``checks.quantities``), and the
``duplicate-options`` verdicts that follow: the same quantity in other units or number formats
is one answer twice; different quantities, an option and its negation, and the same words
swapped around a comparison are not."""

from __future__ import annotations

import pytest
from checks_support import checked, new_item

from bagel_studio.core.checks.quantities import quantities, same_quantities, unit_words
from bagel_studio.core.store import Store


def one(text: str) -> tuple[float, float, str, str]:
    (quantity,) = quantities(text)
    return quantity.low, quantity.high, quantity.dimension, quantity.bound


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("More than 2,500", "over 2 500"),
        ("five", "5"),
        ("37 °C", "about 37 degrees Celsius"),
        ("98.6 °F", "37 °C"),
        ("3 to 4 weeks", "three to four weeks"),
        ("21-28 days", "3–4 weeks"),
        ("About 40%", "roughly 40 percent"),
        ("Up to 12 cm", "at most 120 mm"),
        ("~3-5 kHz", "3,000–5,000 Hz"),
        ("twenty-five species", "25 species"),
        ("a dozen eggs", "12 eggs"),
        ("between 3 and 4 kg", "3-4 kilograms"),
        ("1.5 million", "1,500,000"),
    ],
)
def test_the_same_quantity_written_otherwise(first: str, second: str) -> None:
    assert same_quantities(quantities(first), quantities(second)), (first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("About 40%", "within 40 km"),
        ("More than 2,500", "Less than 2,500"),
        ("3 to 4 weeks", "3 to 4 months"),
        ("~3-5 kHz", "~6-8 kHz"),
        ("five eggs", "five chicks"),
        ("37 °C", "37 km"),
    ],
)
def test_different_quantities(first: str, second: str) -> None:
    assert not same_quantities(quantities(first), quantities(second)), (first, second)


def test_what_a_quantity_is_made_of() -> None:
    assert one("More than 2,500") == (2500.0, 2500.0, "", "ge")
    assert one("Up to 12 cm") == (pytest.approx(0.12), pytest.approx(0.12), "length", "le")
    assert one("Five eggs")[2] == "count:egg"
    assert quantities("One of the largest cats") == ()  # a way of speaking, not a quantity
    assert quantities("Mostly at night, in dense forest") == ()
    assert {"37", "about", "degre", "celsius"} <= unit_words("about 37 degrees Celsius")
    assert "egg" not in unit_words("Five eggs")  # the thing counted stays a word


def _options(*options: str, answer: str = "A") -> dict[str, object]:
    item = new_item("w:q", "Wikipedia", "Which is it?", list(options), answer, "Morphology")
    return checked(Store.memory(), item)["w:q"]


def test_duplicate_options_in_other_units_and_number_words() -> None:
    celsius = _options("37 °C", "About 37 degrees Celsius", "25 °C", "42 °C")
    flag = celsius["duplicate-options"]
    assert flag.details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    assert "'37 °C' = 'About 37 degrees Celsius'" in flag.message  # type: ignore[attr-defined]
    weeks = _options("3 to 4 weeks", "One week", "Three to four weeks", "Six months")
    assert weeks["duplicate-options"].details["options"] == ["A", "C"]  # type: ignore[attr-defined]


def test_reversed_comparisons_negations_and_other_bounds_are_not_duplicates() -> None:
    reversed_ = _options(
        "Males are larger than females",
        "Females are larger than males",
        "Both sexes are the same size",
        "Size varies with season",
    )
    assert "duplicate-options" not in reversed_
    negated = _options(
        "It is venomous to humans",
        "It is not venomous to humans",
        "Only its larvae are venomous",
        "It is venomous to fish only",
    )
    assert "duplicate-options" not in negated
    bounds = _options("More than 2,500", "Fewer than 2,500", "About 250", "Exactly 25")
    assert "duplicate-options" not in bounds


def test_the_same_quantity_in_opposite_directions_is_no_duplicate() -> None:
    sweeps = _options(
        "It sweeps up by more than 2 kHz",
        "It sweeps down by more than 2 kHz",
        "It holds a steady pitch",
        "It is a broadband click",
    )
    assert "duplicate-options" not in sweeps
    moved = _options("Upstream after sunset", "Downstream after sunset", "Not at all", "At noon")
    assert "duplicate-options" not in moved


def test_a_phrase_turned_about_is_still_a_duplicate() -> None:
    turned = _options("Eucalyptus leaves", "Bamboo shoots", "Leaves of eucalyptus", "Insects")
    assert turned["duplicate-options"].details["options"] == ["A", "C"]  # type: ignore[attr-defined]
    assert "the same words: Eucalyptus, leaves" in turned["duplicate-options"].message  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("About 110", "around 110 days"),  # a bare number takes the value as written
        ("About 19 g", "19.2 g"),  # a hedged number: whatever rounds to it
        ("Almost 10%", "9.88%"),
        ("More than 100 m", "100+ m"),
        ("About three quarters", "75%"),
        ("About one third", "About 33%"),
        ("About one in ten", "10%"),
        ("It tripled them", "increased threefold"),
        ("One hundred and fifteen", "115"),
        ("About five weeks", "33-35 days"),
        ("About two to three years", "1.8 to 3.1 years"),
    ],
)
def test_hedged_numbers_shares_and_multiples(first: str, second: str) -> None:
    (mine,) = quantities(first)
    assert any(mine.within(theirs) for theirs in quantities(second)), (first, second)


def test_a_hedge_is_no_licence_for_any_number() -> None:
    (about_40,) = quantities("About 40%")
    assert not about_40.same(quantities("About 45%")[0])
    assert not about_40.same(quantities("About 10%")[0])
    (up_to_four,) = quantities("Up to four")
    assert up_to_four.within(quantities("four lions")[0])  # a gold may say it looser
    assert not up_to_four.within(quantities("four lions")[0], strict=True)  # a distractor not


@pytest.mark.parametrize(
    ("first", "second", "why"),
    [
        ("Sus scrofa", "Wild boar (Sus scrofa)", "the same species, Sus scrofa"),
        ("115", "One hundred and fifteen", "the same quantity"),
        ("About 75%", "About three quarters", "the same quantity"),
        (
            "The bird drinks the flowers' nectar",
            "The bird feeds on nectar from the flowers",
            "the same words",
        ),
    ],
)
def test_duplicates_in_other_words_names_and_numbers(first: str, second: str, why: str) -> None:
    flags = _options(first, second, "Something else entirely", "Another thing again")
    assert why in flags["duplicate-options"].message  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Panthera leo", "Panthera leo leo"),
        ("Males, by 15 to 20 percent", "Females, by 15 to 20 percent"),
        ("Wolves but not dogs", "Dogs but not wolves"),
        ("Only female offspring did", "Only male offspring did"),
        ("More than 100 m", "More than 1 km"),
    ],
)
def test_opposites_that_look_alike_are_not_duplicates(first: str, second: str) -> None:
    assert "duplicate-options" not in _options(first, second, "Neither", "Something else")


def test_figures_in_one_unit_are_exact_and_between_reaches_back() -> None:
    assert not same_quantities(quantities("1983 to 2009"), quantities("1999 to 2001"))
    assert same_quantities(
        quantities("1983 to 2009"), quantities("between the years 1983 and 2009")
    )
    assert same_quantities(quantities("1 mile"), quantities("1.6 km"))  # a rounded conversion


def test_two_values_joined_by_and_are_both_read() -> None:
    # "respectively" lists: each value is one of the text's quantities
    found = quantities("with survival rates of 0.41 and 0.67, respectively")
    assert [(q.low, q.high) for q in found] == [(0.41, 0.41), (0.67, 0.67)]
    (gold,) = quantities("0.67")
    assert any(gold.within(q) for q in found)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Between 12% and 40%", "success ranged from a low of 12% to a high of 40%"),
        ("Four to seven weeks", "a four- to seven-week nesting period"),
        ("10 days", "after a 10-day incubation"),
        ("Two to three years", "a two- to three-year weaning period"),
    ],
)
def test_ranges_and_units_written_with_hyphens_or_lows_and_highs(first: str, second: str) -> None:
    (mine,) = quantities(first)
    assert any(mine.same(theirs) for theirs in quantities(second)), (first, quantities(second))


def test_a_hedge_reaches_half_the_last_figure_either_way() -> None:
    (about_31,) = quantities("About 31%")
    assert about_31.within(quantities("30.5% of the nests")[0])
    assert about_31.within(quantities("31.5% of the nests")[0])
    assert not about_31.within(quantities("29.9% of the nests")[0])


def test_over_a_span_of_time_may_be_a_duration() -> None:
    # "monitored over three weeks": for three weeks, or more than three
    (span,) = quantities("the nests were monitored over three weeks")
    (gold,) = quantities("Three")
    assert gold.within(span)  # a gold may read it as the duration
    assert not gold.within(span, strict=True)  # a distractor is not held by it
    assert quantities("More than three weeks")[0].within(span, strict=True)
    (over_length,) = quantities("over three metres long")
    assert not gold.within(over_length)  # outside time, "over" is "more than"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("two thirds", "2/3"),
        ("2/3", "about 67%"),
        ("three quarters", "3/4"),
        ("one fifth", "1/5"),
        ("two thirds to four fifths", "66.7-80%"),
        ("About one half to three quarters", "50–75%"),
    ],
)
def test_simple_fractions_in_words_figures_and_ranges(first: str, second: str) -> None:
    assert same_quantities(quantities(first), quantities(second)), (first, quantities(first))


def test_slashes_that_are_no_fraction() -> None:
    assert all(q.dimension != "percent" for q in quantities("open 24/7"))
    assert all(q.dimension != "percent" for q in quantities("seen on 3/4/2019"))


def _stem(question: str, *options: str) -> dict[str, object]:
    item = new_item("w:q", "Wikipedia", question, list(options), "A", "Behavior")
    return checked(Store.memory(), item)["w:q"]


def test_a_bare_number_is_the_number_in_the_unit_the_stem_asks_in() -> None:
    days = _stem(
        "For how many days do the chicks stay in the burrow?", "Six", "6 days", "Two", "Ten"
    )
    flag = days["duplicate-options"]
    assert flag.details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    assert "'Six' = '6 days'" in flag.message  # type: ignore[attr-defined]
    counted = _stem("How many chicks fledge from a nest?", "Three", "3 chicks", "Seven", "One")
    assert counted["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    unitless = _stem("How long do the chicks stay in the burrow?", "Six", "6 days", "Two", "Ten")
    assert unitless["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]


def test_a_bare_number_in_another_unit_than_the_stems_is_another_answer() -> None:
    weeks = _stem(
        "For how many weeks do the chicks stay in the burrow?", "Six", "6 days", "Two", "Ten"
    )
    assert "duplicate-options" not in weeks
    other = _stem("How many chicks fledge from a nest?", "Three", "3 weeks", "Seven", "One")
    assert "duplicate-options" not in other


def test_a_range_mostly_inside_another_is_the_same_answer() -> None:
    flags = _options("40-75%", "About one half to three quarters", "10%", "Nearly all")
    assert flags["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    assert "'40-75%'" in flags["duplicate-options"].message  # type: ignore[attr-defined]
    for first, second in [
        ("1-2 years", "2-3 years"),  # touching, not overlapping
        ("10-50 cm", "20-25 cm"),  # a small part of the wider one
        ("Six to nine years", "Six to nine months"),
        ("3-5 kHz", "4-8 kHz"),  # overlapping, neither inside the other
    ]:
        assert "duplicate-options" not in _options(first, second, "Neither", "Something else")


def test_ranges_of_years_far_apart_are_not_nested() -> None:
    assert "duplicate-options" not in _options(
        "1983 to 2009", "2015 to 2019", "1950", "1999 to 2001"
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("3 metres", "9 feet 10 inches"),
        ("1.2 to 1.5 m", "3 ft 11 in to 4 ft 11 in"),
        ("about 45 kg", "99 lb 3 oz"),
        ("2 hours 30 minutes", "150 minutes"),
        ("Roughly a month", "about one month"),
        ("around a week", "seven days"),
        ("about an hour", "60 minutes"),
        ("Nearly two weeks", "14 days"),
    ],
)
def test_compound_units_articles_and_number_words_are_quantities(first: str, second: str) -> None:
    assert same_quantities(quantities(first), quantities(second)), (first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("3 metres", "8 feet 2 inches"),
        ("around a year", "around six months"),
        ("a second time", "1 s"),
        ("a foot of snow", "30 cm"),
        # a hedge covers what rounds to the figure, never a fifth of the value or more
        ("About one year", "About six months"),
        ("About 1 kg", "About 500 g"),
        ("About 2", "1.5"),
    ],
)
def test_compound_and_article_quantities_that_differ(first: str, second: str) -> None:
    assert not same_quantities(quantities(first), quantities(second)), (first, second)


def test_a_conversion_rounded_to_its_own_figures_is_the_same_quantity() -> None:
    # 10 km is 6.2 miles: written "6 miles" it is rounded to the mile, not 3% off by mistake
    assert same_quantities(quantities("10 km"), quantities("6 miles"))
    assert same_quantities(quantities("about 3 kg"), quantities("7 lb"))
    # but not when the difference is more than the finer figure's rounding can explain
    assert not same_quantities(quantities("10 km"), quantities("7 miles"))
    assert not same_quantities(quantities("2 m"), quantities("5 ft"))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # the same words in another order where the order is the claim: a ranking
        ("Blue > orange > white", "Orange > blue > white"),
        ("Wasps < bees < flies", "Bees < wasps < flies"),
        # the same words with the negation on other words
        ("Temperature did, humidity did not", "Humidity did, temperature did not"),
        ("Rain mattered but wind did not", "Wind mattered but rain did not"),
        # one word turned into its antonym, nothing else changed
        (
            "Workers with higher levels were less willing to take risks",
            "Workers with lower levels were less willing to take risks",
        ),
        (
            "Chicks with larger bills were fed more often by both parents",
            "Chicks with smaller bills were fed more often by both parents",
        ),
        (
            "Pairs with more helpers fledged chicks earlier in the season",
            "Pairs with fewer helpers fledged chicks earlier in the season",
        ),
        (
            "The calls grew louder as the females approached the nest",
            "The calls grew softer as the females approached the nest",
        ),
    ],
)
def test_the_same_words_saying_opposite_things_are_not_duplicates(first: str, second: str) -> None:
    assert "duplicate-options" not in _options(first, second, "Neither of these", "Both at once")


def test_a_list_in_another_order_and_the_negation_on_the_same_words_are_still_duplicates() -> None:
    listed = _options("Blue, orange and white", "Orange, blue and white", "Red only", "None")
    assert listed["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    same = _options("Not rain but wind", "Wind, not rain", "Neither of these", "Both at once")
    assert same["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]


def test_a_hedged_span_in_months_is_the_same_span_in_days_or_weeks() -> None:
    months = _options("About four months", "About 120 days", "About six weeks", "About a year")
    assert months["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    assert same_quantities(quantities("about 2 years"), quantities("about 730 days"))
    # a month is 28-31 days: an exact figure in days is no month count, nor a far one
    assert not same_quantities(quantities("4 months"), quantities("115 days"))
    assert not same_quantities(quantities("about four months"), quantities("about 90 days"))


def test_a_bound_before_a_hedge_keeps_the_bound() -> None:
    # "up to about 770 lb" is at most about 770 lb: the same as "up to 350 kg"
    assert one("Up to about 770 lb")[3] == "le"
    assert one("more than about 5 km")[3] == "ge"
    lift = _options("Up to 350 kg", "Up to about 770 lb", "Up to 50 kg", "Up to 1,500 kg")
    assert lift["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    assert "'Up to 350 kg' = 'Up to about 770 lb'" in lift["duplicate-options"].message  # type: ignore[attr-defined]
    assert "duplicate-options" not in _options(
        "Up to 350 kg", "More than about 770 lb", "Up to 50 kg", "Up to 1,500 kg"
    )


def test_each_end_of_a_range_in_its_own_unit() -> None:
    # "four seconds and one minute": the first end in seconds, the second in minutes
    assert one("Between four seconds and one minute")[:3] == (4.0, 60.0, "time")
    assert one("from 6 months to 2 years")[:3] == (6.0, 24.0, "months")
    assert one("2 weeks to 3 months")[2] == "time"  # a span in weeks and months is one of time
    bursts = _options(
        "Between 4 and 60 seconds",
        "Between four seconds and one minute",
        "Between 10 and 20 minutes",
        "About 2 hours",
    )
    assert bursts["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    assert "duplicate-options" not in _options(
        "Between 4 and 60 seconds", "Between four and sixty minutes", "About 2 hours", "A day"
    )


def test_a_hedged_value_in_the_middle_of_a_narrow_range_is_the_same_answer() -> None:
    # "roughly three quarters" (75%) is inside "about 70-80%", which says no more than it
    share = _options("About 70–80%", "Roughly three quarters", "About 10–20%", "Nearly all of them")
    assert share["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    assert "'Roughly three quarters'" in share["duplicate-options"].message  # type: ignore[attr-defined]
    weeks = _options("4-6 weeks", "About 5 weeks", "10-12 weeks", "A year")
    assert weeks["duplicate-options"].details["options"] == ["A", "B"]  # type: ignore[attr-defined]
    for first, second in [
        ("10-50 cm", "About 30 cm"),  # a range far wider than the hedge
        ("70-80%", "75%"),  # not hedged: a figure the range does not give
        ("70-80%", "About 90%"),  # outside it
        ("Up to 80%", "About 75%"),  # a bound, no range
    ]:
        assert "duplicate-options" not in _options(first, second, "Neither", "Something else")


def test_a_conversion_rounded_to_the_coarser_units_figures_is_the_same_quantity() -> None:
    # 30 km is 18.6 miles, written "19 miles": rounded to the mile, the coarser figure
    assert same_quantities(quantities("30 km"), quantities("19 miles"))
    assert _options("30 km", "12 km", "19 miles", "50 km")["duplicate-options"].details[
        "options"
    ] == ["A", "C"]  # type: ignore[attr-defined]
    # more than the coarser figure's rounding, or a coarser figure of one digit: other answers
    assert not same_quantities(quantities("30 km"), quantities("20 miles"))
    assert not same_quantities(quantities("500 m"), quantities("1 km"))
    assert not same_quantities(quantities("1500 m"), quantities("2 km"))


def test_hyphenated_number_words_are_quantities() -> None:
    fifth = _options("One-fifth", "Half", "20%", "90%")
    assert fifth["duplicate-options"].details["options"] == ["A", "C"]  # type: ignore[attr-defined]
    assert "'One-fifth' = '20%'" in fifth["duplicate-options"].message  # type: ignore[attr-defined]
    count = _options("Thirty-two", "12", "32", "8")
    assert count["duplicate-options"].details["options"] == ["A", "C"]  # type: ignore[attr-defined]
    assert "duplicate-options" not in _options("Two-thirds", "20%", "Well-known", "90%")
