"""Storage backends behind one port."""
