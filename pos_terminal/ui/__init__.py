"""The cashier's and manager's windows: the only package that imports PySide6 and qasync.

Views present and call services; they never do arithmetic on money or talk HTTP.
"""
