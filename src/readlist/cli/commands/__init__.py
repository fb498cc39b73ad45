"""The `readlist` subcommands, one module per group, each loaded only when it runs."""
