"""The service's HTTP interfaces: wire models, routes, error mapping, retries, auth flows, the POS client.

The only package of the terminal that imports httpx.
"""
