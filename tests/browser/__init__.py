"""Real-browser tests: headless Chromium from Debian, driven by Playwright for Python."""
