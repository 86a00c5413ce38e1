"""Placeholder; the payments API v5 is being written."""

from fastapi import APIRouter

router = APIRouter()
control_router = APIRouter()
