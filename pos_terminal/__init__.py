"""Point-of-sale terminal for a hosted payments and loyalty service."""
