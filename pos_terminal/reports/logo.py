"""The store's logo: a picture file a manager chose, checked whole and made into the one every till prints.

A file is refused, with one sentence naming it, when it is larger than
:data:`~pos_terminal.domain.details.LOGO_FILE_LIMIT`, is not a PNG or JPEG, says it is larger than
:data:`~pos_terminal.domain.details.LOGO_FILE_PIXELS` either way (checked before its pixels are decoded), or
cannot be decoded whole (a header that promises more than the file holds). What is kept is a grey PNG that fits
:data:`~pos_terminal.domain.details.LOGO_DOTS` square (never enlarged), transparency on white: the receipt printer
and the PDFs print the same picture on every till, whatever file it came from.

Pillow loads when a logo is first read or drawn, not with this module.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from pos_terminal.domain.details import LOGO_DOTS, LOGO_FILE_LIMIT, LOGO_FILE_PIXELS, BadLogo

if TYPE_CHECKING:
    from PIL import Image

FORMATS = ("PNG", "JPEG")


def read_logo(path: Path) -> bytes:
    """The logo made from the file at ``path`` (see :func:`store_logo`); BadLogo when it cannot be one."""
    try:
        with path.open("rb") as file:
            data = file.read(LOGO_FILE_LIMIT + 1)
    except FileNotFoundError:
        raise BadLogo(f"The logo {path.name} does not exist.") from None
    except IsADirectoryError:
        raise BadLogo(f"The logo {path.name} is a folder, not a picture.") from None
    except OSError as exc:
        raise BadLogo(f"The logo {path.name} cannot be read ({exc.strerror or 'no access'}).") from None
    return store_logo(data, path.name)


def store_logo(data: bytes, name: str) -> bytes:
    """``data`` (a file called ``name``) as the logo the tills keep: a grey PNG within LOGO_DOTS; BadLogo else."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    if len(data) > LOGO_FILE_LIMIT:
        raise BadLogo(f"The logo {name} is larger than {LOGO_FILE_LIMIT // 1024} KB.")
    try:
        with Image.open(io.BytesIO(data), formats=FORMATS) as picture:
            width, height = picture.size  # from the header: nothing decoded yet
            if width > LOGO_FILE_PIXELS or height > LOGO_FILE_PIXELS:
                raise BadLogo(
                    f"The logo {name} is {width} × {height} pixels, larger than"
                    f" {LOGO_FILE_PIXELS} × {LOGO_FILE_PIXELS}."
                )
            if width < 1 or height < 1:
                raise BadLogo(f"The logo {name} has no pixels.")
            picture.load()
            upright = ImageOps.exif_transpose(picture)
    except Image.DecompressionBombError:  # a header claiming millions of pixels: Pillow stops at it
        raise BadLogo(f"The logo {name} is larger than {LOGO_FILE_PIXELS} × {LOGO_FILE_PIXELS} pixels.") from None
    except UnidentifiedImageError:
        raise BadLogo(f"The logo {name} is not a PNG or JPEG picture.") from None
    except (OSError, SyntaxError, ValueError):
        # Pillow's word for a broken PNG chunk is SyntaxError; for data that ends early, OSError.
        raise BadLogo(f"The logo {name} is damaged: its picture cannot be read whole.") from None
    grey = _on_white(upright)
    grey.thumbnail((LOGO_DOTS, LOGO_DOTS), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    grey.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _on_white(picture: Image.Image) -> Image.Image:
    """``picture`` in grey (``L``), what is transparent in it white (paper shows through a logo's background)."""
    from PIL import Image

    if picture.mode in ("RGBA", "LA", "PA") or (picture.mode == "P" and "transparency" in picture.info):
        rgba = picture.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("L")
    return picture.convert("L")
