"""Keeps the control surface to loopback callers even when the sandbox listens publicly."""

from __future__ import annotations

import ipaddress

from fastapi import Request

from pos_terminal.sandbox.problems import ProblemError


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def loopback_only(request: Request) -> None:
    if not is_loopback(request.client.host if request.client else ""):
        raise ProblemError(403, "FORBIDDEN", "The sandbox control surface answers loopback callers only")
