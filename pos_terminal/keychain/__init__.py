"""The sign-in kept on this machine: the token set in the OS keychain, or in a file when the settings opt in.

The only package that imports ``keyring``. No keychain is a :class:`~pos_terminal.errors.UserError` that says
how to opt in to the file.
"""
