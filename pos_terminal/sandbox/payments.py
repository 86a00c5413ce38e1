"""Placeholder; filled in by the payments work."""

from fastapi import APIRouter

router = APIRouter()
