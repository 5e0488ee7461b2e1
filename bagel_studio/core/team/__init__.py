"""A review team: the plan's progress and agreement (``status``), the packages handed out to
each curator (``operations.handout``) and collected back (``collect``)."""
