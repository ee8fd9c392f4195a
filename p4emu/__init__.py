"""p4emu package."""
