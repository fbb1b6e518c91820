"""Run reports: ``report.html`` for people, ``junit.xml`` for CI."""

from farm.report.html import render_html, write_html
from farm.report.junit import build_junit, write_junit

__all__ = ["build_junit", "render_html", "write_html", "write_junit"]
