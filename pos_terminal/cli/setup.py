"""``setup`` and ``config``: this terminal's settings, written without the window, no service and no sandbox."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from pos_terminal.cli.arguments import Commands, action_commands, profile_options
from pos_terminal.cli.output import EXIT_OK, Output
from pos_terminal.cli.store import join_store_as_asked
from pos_terminal.errors import ConfigError, UserError
from pos_terminal.paths import Paths

if TYPE_CHECKING:
    from pos_terminal.config import Settings


def register(commands: Commands) -> None:
    setup = commands.add_parser(
        "setup", help="write this terminal's settings (region, terminal id, ...) without the window"
    )
    profile_options(setup)
    setup.add_argument("--region", help="sandbox (embedded), a region of the region table, or custom")
    setup.add_argument(
        "--service",
        metavar="URL",
        help="instead of --region: the service at URL, as custom addresses (POS API at URL/v4), as the window's "
        "--service URL uses it",
    )
    setup.add_argument("--terminal", dest="terminal_id", required=True, metavar="ID", help="this terminal's id")
    setup.add_argument("--locale", help="locale of amounts and dates, like en_AU (default: as set, else en_AU)")
    setup.add_argument("--currency", help="ISO 4217 code, like AUD (default: as set, else AUD)")
    setup.add_argument("--printer", help="the printer for reports and receipts (a system printer, or pdf:FILE)")
    setup.add_argument("--auth-url", dest="auth_url", metavar="URL", help="with --region custom: the auth address")
    setup.add_argument("--pos-url", dest="pos_url", metavar="URL", help="with --region custom: the POS API address")
    setup.add_argument(
        "--payments-url", dest="payments_url", metavar="URL", help="with --region custom: the web payments address"
    )
    setup.add_argument(
        "--store", dest="url", metavar="URL", help="also join the store whose database is at URL (as store join)"
    )
    setup.add_argument(
        "--password-fd", dest="password_fd", metavar="N", type=int, help="with --store: read its password from fd N"
    )
    setup.set_defaults(profile_handler=_setup)

    config = commands.add_parser("config", help="show or change single settings")
    config_commands = action_commands(config, "config_command")
    profile_options(config_commands.add_parser("list", help="every setting and its value"))
    config_get = config_commands.add_parser("get", help="the value of one setting")
    profile_options(config_get)
    config_get.add_argument("name", help="a setting, like terminal_id or custom_urls.auth_url")
    config_set = config_commands.add_parser("set", help="change one setting (checked as the set-up page checks)")
    profile_options(config_set)
    config_set.add_argument("name")
    config_set.add_argument("value")
    config_unset = config_commands.add_parser("unset", help="put one setting back to its default")
    profile_options(config_unset)
    config_unset.add_argument("name")
    config.set_defaults(profile_handler=_config)


def _refuse_a_currency_change(paths: Paths, before: Settings, after: Settings) -> None:
    """Not a new currency while this profile's till holds money in the old one (the window asks the same)."""
    if after.currency == before.currency or not paths.journal_file.exists():
        return
    from pos_terminal.journal.journal import Journal
    from pos_terminal.services.setup import currency_change_refused

    with Journal(paths.journal_file) as journal:
        refused = currency_change_refused(journal, before.terminal_id, before.currency, after.currency)
    if refused is not None:
        raise refused


def _save_settings(paths: Paths, settings: Settings) -> None:
    from pos_terminal.config import save_settings

    try:
        save_settings(paths.config_file, settings)
    except OSError as exc:
        raise ConfigError(f"The settings cannot be saved to {paths.config_file} ({exc.strerror}).") from exc


def _setup(paths: Paths, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.config import load_settings
    from pos_terminal.services.setup import region_choices, set_up

    settings, _ = load_settings(paths.config_file)
    region = args.region
    if args.service is not None:
        if region is not None:
            raise UserError("Give --region or --service, not both: --service URL is the custom region at URL.")
        from pos_terminal.services.setup import CUSTOM, of_service

        settings, region = of_service(settings, args.service), CUSTOM
    elif region is None:
        raise UserError("Say where this till works: --region REGION, or --service URL for a service of your own.")
    given = {"auth_url": args.auth_url, "pos_url": args.pos_url, "payments_url": args.payments_url}
    urls = None
    if any(value is not None for value in given.values()):
        urls = settings.custom_urls.model_copy(
            update={name: value.strip() for name, value in given.items() if value is not None}
        )
    chosen = set_up(
        settings,
        regions=[key for key, _ in region_choices(paths)],
        region=region,
        terminal_id=args.terminal_id,
        locale=settings.locale if args.locale is None else args.locale,
        currency=settings.currency if args.currency is None else args.currency,
        printer=args.printer,
        custom_urls=urls,
    )
    _refuse_a_currency_change(paths, settings, chosen)
    if chosen.printer is not None:
        from pos_terminal.ui.printing import check_printer

        check_printer(chosen.printer)
    if args.url is not None:  # joined first: a store that cannot be joined leaves the settings as they were
        import asyncio

        asyncio.run(join_store_as_asked(paths, chosen, args, out))
    _save_settings(paths, chosen)
    out.data(chosen.model_dump(mode="json"))
    out.line(f"Terminal {chosen.terminal_id} in region {chosen.region}, {chosen.locale} {chosen.currency}.")
    out.line(f"Settings written to {paths.config_file}.")
    return EXIT_OK


def _shown(value: object) -> str:
    return "(not set)" if value is None else json.dumps(value, ensure_ascii=False)


def _config(paths: Paths, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.config import load_settings
    from pos_terminal.services.setup import change_setting, get_setting, region_choices, setting_names

    settings, _ = load_settings(paths.config_file)
    if args.config_command == "list":
        values = {name: get_setting(settings, name) for name in setting_names(settings)}
        out.data(values)
        for name, value in values.items():
            out.line(f"{name} = {_shown(value)}")
        return EXIT_OK
    if args.config_command == "get":
        value = get_setting(settings, args.name)
        out.data(value)
        out.line("" if value is None else str(value))
        return EXIT_OK
    regions = [key for key, _ in region_choices(paths)]
    value = args.value if args.config_command == "set" else None
    changed = change_setting(settings, args.name, value, regions=regions)
    _refuse_a_currency_change(paths, settings, changed)
    _save_settings(paths, changed)
    now = get_setting(changed, args.name.strip())
    out.data({args.name.strip(): now})
    out.line(f"{args.name.strip()} = {_shown(now)}")
    return EXIT_OK
