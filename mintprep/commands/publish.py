"""`mintprep publish`: rebuild the page, publish it (mintprep.page.publish), and record where it went: the page
stage's publish step (mintprep.stages.page), which `audit --repair` runs too."""

from mintprep.stages.page import publish_page

__all__ = ["publish_page"]
