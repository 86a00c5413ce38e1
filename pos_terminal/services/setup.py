"""Setting a terminal up, from the window's set-up page or the command line: one set of checks for both.

:func:`set_up` is what the first-launch page and ``pos-terminal setup`` apply; :func:`change_setting`
is ``pos-terminal config set``, which re-checks the same choices after the change, so no way of
editing the settings accepts what another refuses.
"""

from __future__ import annotations

import typing
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from pos_terminal.api.regions import EMBEDDED, load_regions
from pos_terminal.config import CustomUrls, Settings, basic_choices, with_changes
from pos_terminal.domain.sale import FINISHED
from pos_terminal.errors import ConfigError, UserError
from pos_terminal.paths import Paths
from pos_terminal.services.catalog import load_catalog
from pos_terminal.services.counter import check_devices

if TYPE_CHECKING:
    from pos_terminal.journal.journal import Journal

CUSTOM = "custom"  # addresses typed in the settings rather than taken from the region table


def region_choices(paths: Paths) -> list[tuple[str, str]]:
    """(key, name) of every region the terminal can use, the embedded sandbox first."""
    regions = load_regions(paths.regions_file if paths.regions_file.exists() else None)
    return [(EMBEDDED, "Embedded sandbox (no account needed)")] + [(k, r.name) for k, r in regions.items()]


def of_service(settings: Settings, service_url: str) -> Settings:
    """``settings`` naming the service given with ``--service URL`` as custom addresses (its auth and payments at
    URL, its POS API at URL/v4, as the terminal reaches it): what a new profile's set-up page and ``setup --service``
    start from, and what Settings then shows as it is."""
    root = service_url.strip().rstrip("/")
    urls = CustomUrls(auth_url=root, pos_url=f"{root}/v4", payments_url=root)
    return settings.model_copy(update={"region": CUSTOM, "custom_urls": urls})


def check_region(region: str, known: Collection[str]) -> str:
    """``region`` when it is one of ``known`` (or the custom addresses); else one sentence naming the choices."""
    region = region.strip()
    if region in known or region == CUSTOM:
        return region
    raise ConfigError(f"The region “{region}” is unknown.", hint=f"Choose one of {', '.join(known)}.")


def set_up(
    settings: Settings,
    *,
    regions: Collection[str],
    region: str,
    terminal_id: str,
    locale: str,
    currency: str,
    printer: str | None = None,
    custom_urls: CustomUrls | None = None,
) -> Settings:
    """``settings`` with the set-up page's choices, checked; a ConfigError with one sentence when one is wrong.
    ``custom_urls``, given with them, are the custom region's addresses (the region needs them: see
    :func:`check_custom_urls`)."""
    typed = basic_choices(terminal_id, locale, currency)
    changes: dict[str, Any] = {"region": check_region(region, regions), **typed}
    if printer is not None:
        changes["printer"] = printer.strip() or None
    if custom_urls is not None:
        changes["custom_urls"] = custom_urls
    chosen = with_changes(settings, **changes)
    check_custom_urls(chosen.region, chosen.custom_urls)
    return chosen


def check_custom_urls(region: str, urls: CustomUrls) -> None:
    """Custom addresses are web addresses, and the custom region has at least the auth and POS API ones."""
    if region == CUSTOM and not (urls.auth_url and urls.pos_url):
        raise UserError(
            "Custom addresses need at least the auth and POS API addresses.",
            hint="Give them with the region: setup --region custom --auth-url URL --pos-url URL.",
        )
    for url in (urls.auth_url, urls.pos_url, urls.payments_url):
        if url and not url.startswith(("https://", "http://")):
            raise UserError(f"“{url}” is not a web address.", hint="Give it like https://host/v4.")


def checked(settings: Settings, regions: Collection[str]) -> Settings:
    """``settings`` as the set-up and settings pages would accept them (what ``config set`` checks too)."""
    check_custom_urls(settings.region, settings.custom_urls)
    if settings.catalog_file:
        load_catalog(settings.catalog_file)
    check_devices(settings.devices)
    return set_up(
        settings,
        regions=regions,
        region=settings.region,
        terminal_id=settings.terminal_id,
        locale=settings.locale,
        currency=settings.currency,
    )


# --- single settings, by name -------------------------------------------------------------------

_NOT_SETTABLE = frozenset({"schema_version", "install_id"})  # the profile's identity is made, never typed


def setting_names(settings: Settings) -> list[str]:
    """Every setting by its dotted name (``custom_urls.auth_url``, ``routes.summary``), in file order."""
    names: list[str] = []
    for name in type(settings).model_fields:
        if name in _NOT_SETTABLE:
            continue
        value = getattr(settings, name)
        if isinstance(value, BaseModel):
            names.extend(f"{name}.{inner}" for inner in type(value).model_fields)
        elif isinstance(value, dict) and (model := _entry_model(settings, name)) is not None:
            # a table of tables ([auth.REGION]): each entry's every setting
            names.extend(f"{name}.{key}.{inner}" for key in sorted(value) for inner in model.model_fields)
        elif isinstance(value, dict):
            names.extend(f"{name}.{key}" for key in sorted(value))
        else:
            names.append(name)
    return names


def _entry_model(settings: Settings, name: str) -> type[BaseModel] | None:
    """The model of each entry of a setting that is a table of tables (``auth``: RegionAuth), else None."""
    annotation = type(settings).model_fields[name].annotation
    args = typing.get_args(annotation)
    if (
        typing.get_origin(annotation) is dict
        and len(args) == 2
        and isinstance(args[1], type)
        and issubclass(args[1], BaseModel)
    ):
        return args[1]
    return None


def _split(settings: Settings, name: str) -> tuple[str, str | None]:
    head, _, tail = name.strip().partition(".")
    fields = type(settings).model_fields
    if head not in fields or head in _NOT_SETTABLE:
        raise ConfigError(f"There is no setting “{name}”.", hint="pos-terminal config list shows every setting.")
    value = getattr(settings, head)
    nested = isinstance(value, BaseModel | dict)
    if nested and not tail:
        raise ConfigError(f"“{head}” holds several settings.", hint=f"Name one, like {head}.NAME.")
    if tail and not nested:
        raise ConfigError(f"There is no setting “{name}”.", hint="pos-terminal config list shows every setting.")
    if isinstance(value, BaseModel) and tail not in type(value).model_fields:
        raise ConfigError(f"There is no setting “{name}”.", hint="pos-terminal config list shows every setting.")
    model = _entry_model(settings, head) if isinstance(value, dict) else None
    if model is not None:
        key, _, field = tail.partition(".")
        if not key or field not in model.model_fields:
            choices = ", ".join(model.model_fields)
            raise ConfigError(
                f"There is no setting “{name}”.", hint=f"Name one like {head}.REGION.FIELD, FIELD one of {choices}."
            )
    return head, tail or None


def get_setting(settings: Settings, name: str) -> Any:
    """The value of one setting (``None`` when unset); a ConfigError when there is no such setting."""
    head, tail = _split(settings, name)
    value = getattr(settings, head)
    if tail is None:
        return value
    if isinstance(value, BaseModel):
        return getattr(value, tail)
    model = _entry_model(settings, head)
    if model is not None:
        key, _, field = tail.partition(".")
        return getattr(value[key] if key in value else model(), field)  # an entry not written: its defaults
    if tail not in value:
        raise ConfigError(f"The setting “{name}” is not set.", hint="pos-terminal config list shows every setting.")
    return value[tail]


def change_setting(settings: Settings, name: str, value: str | None, *, regions: Collection[str]) -> Settings:
    """``settings`` with one setting changed (``value`` as typed, converted by the settings' own types) or,
    when ``value`` is None, put back to its default; checked as the set-up page checks."""
    head, tail = _split(settings, name)
    default = type(settings).model_fields[head].get_default(call_default_factory=True)
    new: Any
    if tail is None:
        new = default if value is None else value
    else:
        inner = getattr(settings, head)
        new = inner.model_dump() if isinstance(inner, BaseModel) else dict(inner)
        defaults = default.model_dump() if isinstance(default, BaseModel) else dict(default)
        if _entry_model(settings, head) is not None:
            key, _, field = tail.partition(".")
            new = {k: v.model_dump(exclude_unset=True) for k, v in inner.items()}
            entry = new.setdefault(key, {})
            if value is not None:
                entry[field] = value
            else:
                entry.pop(field, None)  # back to the default
                if not entry:
                    new.pop(key)
            return checked(with_changes(settings, **{head: new}), regions)
        if value is not None:
            new[tail] = value
        elif tail in defaults:
            new[tail] = defaults[tail]
        else:
            new.pop(tail, None)
    return checked(with_changes(settings, **{head: new}), regions)


def currency_change_refused(journal: Journal, terminal_id: str, was: str, currency: str) -> UserError | None:
    """Why the till of ``journal`` may not change from ``was`` to ``currency`` now, or None: the money it holds is
    counted in ``was`` (the open shift's float and sales, the check being sold), and a new currency would relabel it,
    not convert it. The window and the command line ask the same journal."""
    if currency.strip().upper() == was.upper():
        return None
    from pos_terminal.journal.store_link import LinkBook
    from pos_terminal.services.register import OpenCheck, UnreadableCheck
    from pos_terminal.services.shifts import Shifts

    if (link := LinkBook(journal).state()) is not None:
        return UserError(
            f"The currency cannot change while this till is part of the store at {link.address}, which counts in"
            f" {was}.",
            hint="Leave the store first to count in another currency.",
        )
    if (shift := Shifts(journal, terminal_id=terminal_id).current()) is not None:
        return UserError(
            f"The currency cannot change while shift {shift.id} is open: its float and its sales are in {was}.",
            hint="Close the shift first, then change the currency.",
        )
    try:
        state = OpenCheck.kept_in(journal)
    except UnreadableCheck:
        state = None  # the till starts a new check in its place: nothing is held in it
    if state is not None and state.check.items and state.phase not in FINISHED:
        return UserError(
            f"The currency cannot change while a check in {was} is open.",
            hint="Finish the check or clear it first, then change the currency.",
        )
    return None
