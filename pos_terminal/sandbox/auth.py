"""Placeholder; filled in by the auth work."""

from fastapi import APIRouter

router = APIRouter()
