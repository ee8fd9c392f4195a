"""endpoint package."""
