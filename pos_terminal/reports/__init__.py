"""PDF out of report data: end-of-day reports and receipts (the only importer of reportlab), and pages as images.

Data in, bytes out: nothing here talks to the service, the journal or Qt.
"""
