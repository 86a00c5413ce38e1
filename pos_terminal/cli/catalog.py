"""``catalog`` and ``details``: the products this till sells, and the store's details printed on its slips."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pos_terminal.cli.arguments import Commands, action_commands, common_options, person_options
from pos_terminal.cli.output import EXIT_OK, Output
from pos_terminal.cli.pins import act_as
from pos_terminal.domain.words import counted

if TYPE_CHECKING:
    from pos_terminal.services.terminal import Terminal


def register(commands: Commands) -> None:
    catalog = commands.add_parser(
        "catalog", help="the products this till sells (in a store: the store's, for every till)"
    )
    catalog_commands = action_commands(catalog, "catalog_command")
    listing = catalog_commands.add_parser("list", help="the catalog in use, tab by tab")
    common_options(listing)
    listing.set_defaults(handler=_catalog_list)
    importing = catalog_commands.add_parser(
        "import", help="make a catalog file the catalog (a manager's PIN); it is checked whole first"
    )
    common_options(importing)
    person_options(importing, manager=True)
    importing.set_defaults(handler=_catalog_import)
    importing.add_argument(
        "file", help="a catalog file: JSON (the format of resources/catalog.json), or CSV for a name ending .csv"
    )
    exporting = catalog_commands.add_parser(
        "export", help="write the catalog in use to a file: JSON, or CSV for a name ending .csv (- for standard output)"
    )
    common_options(exporting)
    exporting.add_argument("file")
    exporting.set_defaults(handler=_catalog_export)
    exporting.add_argument("--format", choices=("json", "csv"), default="json", help="for -: the format (default json)")
    details = commands.add_parser(
        "details", help="the store's name, address, tax number, receipt header and footer (printed on slips)"
    )
    common_options(details)
    person_options(details, manager=True)
    details.set_defaults(handler=_details)
    for flag, text in (
        ("--name", "the store's name"),
        ("--address", "its address"),
        ("--tax-number", "its tax number"),
        ("--header", "lines printed at the top of every receipt"),
        ("--footer", "lines printed at the foot of every receipt"),
    ):
        details.add_argument(flag, metavar="TEXT", help=f"{text} (an empty TEXT removes it)")
    logo = details.add_mutually_exclusive_group()
    logo.add_argument(
        "--logo", metavar="FILE", help="a PNG or JPEG printed above the store's name (at most 512 KB, 1024x1024 px)"
    )
    logo.add_argument("--no-logo", action="store_true", help="print no logo")


async def _catalog_list(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.catalog import catalog_json

    catalog = terminal.catalog()
    out.data(catalog_json(catalog))
    where = "the store's" if terminal.store.linked else "this till's"
    out.line(f"{counted(len(catalog), 'product')} in {where} catalog.")
    for category in (*catalog.categories, None):
        entries = [e for e in catalog if e.category == category]
        if not entries:
            continue
        out.line(f"{category or 'No category'}:")
        for entry in entries:
            rate = "" if entry.tax_rate_bp is None else f"  tax {entry.tax_rate_bp / 100:g} %"
            codes = f"  {', '.join(entry.barcodes)}" if entry.barcodes else ""
            out.line(f"  {entry.name:<32} {terminal.money.format(entry.price):>12}{rate}{codes}")
    return EXIT_OK


async def _catalog_import(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.catalog import load_catalog
    from pos_terminal.services.catalog_editor import parse_csv, read_csv

    path = Path(args.file)
    csv_file = path.suffix.casefold() == ".csv"
    if csv_file:  # the whole file is checked before anything changes, and before a PIN is asked
        data = read_csv(path)
        parse_csv(data, f"the file {path}")
    else:
        catalog = load_catalog(path)
    person = await act_as(terminal, args, manager=True)
    by = person.name if person else None
    editor = terminal.catalog_editor
    if csv_file:
        published = editor.import_csv(data, source=str(path), by=by)
    else:
        published = editor.publish(catalog, source=str(path), by=by)
    products = len(terminal.catalog())
    out.data(
        {
            "products": products,
            "added": published.added,
            "changed": published.changed,
            "retired": published.retired,
            "store": terminal.store.linked,
        }
    )
    if not published.any:
        out.line("The catalog is already this one: nothing changed.")
        return EXIT_OK
    whose = "The store's catalog" if terminal.store.linked else "This till's catalog"
    out.line(
        f"{whose} now has {counted(products, 'product')}: {len(published.added)} added,"
        f" {len(published.changed)} changed, {len(published.retired)} taken off."
    )
    return EXIT_OK


async def _catalog_export(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.catalog import catalog_json, write_catalog, write_text

    csv_file = args.file.casefold().endswith(".csv") or args.format == "csv"
    if args.file == "-":
        text = (
            terminal.catalog_editor.export_csv()
            if csv_file
            else json.dumps(catalog_json(terminal.catalog()), ensure_ascii=False, indent=2) + "\n"
        )
        sys.stdout.write(text)
        return EXIT_OK
    path = Path(args.file)
    if csv_file:
        write_text(path, terminal.catalog_editor.export_csv())
    else:
        write_catalog(path, terminal.catalog())
    count = len(terminal.catalog())
    out.data({"file": str(path), "products": count})
    out.line(f"{counted(count, 'product')} written to {path}.")
    return EXIT_OK


async def _details(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    from dataclasses import replace

    from pos_terminal.domain.details import LIMITS, details_of
    from pos_terminal.reports.logo import read_logo

    given = {
        "name": args.name,
        "address": args.address,
        "tax_number": args.tax_number,
        "receipt_header": args.header,
        "receipt_footer": args.footer,
    }
    current = terminal.store.details.get()
    values = {field: getattr(current, field, None) for field in LIMITS}
    logo = current.logo if current is not None else None
    if all(value is None for value in given.values()) and args.logo is None and not args.no_logo:
        out.data(values | {"logo": _logo_size(logo)})
        if current is None:
            out.line("The store has no details yet: set them with pos-terminal details --name NAME.")
        for field, value in values.items():
            if value:
                out.line(f"{field.replace('_', ' ').capitalize():<16} {value}")
        if logo:
            out.line(f"{'Logo':<16} {_logo_size(logo)}")
        return EXIT_OK
    details = details_of(values | {field: value for field, value in given.items() if value is not None})
    if args.logo is not None:
        logo = read_logo(Path(args.logo))  # checked whole, before a manager is asked
    elif args.no_logo:
        logo = None
    details = replace(details, logo=logo)
    person = await act_as(terminal, args, manager=True)
    by = person.name if person else None
    if terminal.set_store_details(details, by=by):
        out.line("The store's details are changed" + (" for every till." if terminal.store.linked else "."))
    else:
        out.line("The store's details are already these: nothing changed.")
    out.data({field: getattr(details, field) for field in LIMITS} | {"logo": _logo_size(details.logo)})
    return EXIT_OK


def _logo_size(logo: bytes | None) -> str | None:
    """A logo as a command shows it: its size in pixels (from the PNG's header), never its bytes."""
    if logo is None:
        return None
    width, height = int.from_bytes(logo[16:20], "big"), int.from_bytes(logo[20:24], "big")
    return f"{width} x {height} px"
