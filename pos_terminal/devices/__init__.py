"""The counter's hardware behind small interfaces: the ESC/POS receipt printer and the cash drawer it opens.

The only package that imports python-escpos. Everything here blocks (sockets, USB,
a serial line): the services call it from a worker thread, never on the window's loop.
The barcode scanner is a keyboard to the computer (``ui/scanner.py``) and the customer
display a second window (``ui/customer_display.py``): neither needs a driver.
"""
