"""`python -m generator` runs the pnp command line."""
from .cli import main

main()
