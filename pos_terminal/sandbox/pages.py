"""HTML pages of the sandbox: Jinja2 templates with autoescaping on one shared layout.

Every page a person sees (device sign-in, the authorization pages, the approval
sheet of the emulated app, the example ordering page) is a template under
``templates/``; values are escaped by the engine, never by hand. The style sheet
and page scripts are static files under ``static/assets`` served at ``/assets``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from starlette.staticfiles import StaticFiles

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
ASSETS_PATH = "/assets"


@cache
def environment() -> Environment:
    """The one template environment: autoescaping for HTML, undefined names are errors."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["assets"] = ASSETS_PATH
    env.filters["money"] = money
    return env


def money(cents: int) -> str:
    """Cents as the pages show them, ``$1,234.50``: the sandbox has no currency of its own."""
    whole, part = divmod(abs(cents), 100)
    return f"{'-' if cents < 0 else ''}${whole:,}.{part:02d}"


def render(
    template: str,
    *,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
    **context: Any,
) -> HTMLResponse:
    """``template`` rendered with ``context`` as an HTML response."""
    document = environment().get_template(template).render(**context)
    return HTMLResponse(document, status_code=status, headers=dict(headers or {}))


def assets() -> StaticFiles:
    """Style sheet and page scripts, mounted at :data:`ASSETS_PATH`."""
    return StaticFiles(directory=STATIC / "assets")
