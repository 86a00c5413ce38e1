"""Text the terminal must survive and the one-sentence rule of its errors."""

from __future__ import annotations

from pos_terminal.errors import UserError

ODD = (  # a customer list: plain text, a lone surrogate and control characters, a surrogate pair
    b'[{"customerId":"c1","checkInId":"k1","firstName":"Zo\\u00eb","lastName":"Tab\\tOk"},'
    b'{"customerId":"c2","checkInId":"k2","firstName":"\\ud800","lastName":"Bell\\u0007"},'
    b'{"customerId":"c3","checkInId":"k3","firstName":"\\ud83d\\ude00","lastName":"\\b\\f"}]'
)


def assert_one_sentence(error: UserError) -> str:
    """What the cashier reads: one line of plain prose, never markup, a traceback or a blank."""
    text = error.text()
    assert text.strip() == text and text, repr(text)
    assert "\n" not in text and "<" not in text and ">" not in text, text
    assert "Traceback" not in text and "Error(" not in text, text
    assert error.sentence[0].isupper() and error.sentence.endswith("."), error.sentence
    assert len(text) < 300
    return text
