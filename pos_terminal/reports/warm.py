"""What every report child needs, loaded once in the fork server the children start from (pos_terminal.reports.worker).

Imported there before the first child is forked (and by a spawned child itself): the modules a report is made and
drawn with, and the fonts read and registered with reportlab (about a quarter of a second), so each child starts with
all of it.
"""

from pos_terminal.reports import end_of_day, fonts, raster  # noqa: F401 (loaded for the children)

fonts.register()
