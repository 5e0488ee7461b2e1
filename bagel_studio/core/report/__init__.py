"""What a release says about itself, in words and pictures: its dataset card and its report.

The features that make a release use this package and it uses none of them: the export hands it
the release's counts (``release.Release``, which ``export.ExportPlan`` is), the lengths gathered
while the items were written, and the sections other features add after the release's own tables
(``release.Section``: the models' tables from ``llm.report``, the benchmark audit from
``audit.release``). Adding a table to the report is adding a section.

* ``tables``: Markdown tables (the paper's Tables 2, 9 and 10, outcomes, reject reasons, lengths);
* ``plots``: the bar charts, drawn on ``raster``'s canvas with ``glyphs``' bitmap font;
* ``card``: the dataset card (README.md); ``layout``: where each file of a release lives;
* ``assembly``: report.md and its plots, the release's tables followed by the sections.
"""
