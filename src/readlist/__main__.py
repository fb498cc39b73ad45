"""`python -m readlist`: the same as the `readlist` command."""

from .cli import main

main()
