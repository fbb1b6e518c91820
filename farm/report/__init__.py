"""Run reports: ``report.html`` for people, ``junit.xml`` for CI.

Nothing is imported here: ``from farm.report.paths import …`` (at a run's start) does not
load the HTML renderer and its templates (~140 ms); its modules are imported by name."""
