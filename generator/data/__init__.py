"""Data: a game folder read and checked, nothing drawn.

In: `cards/<game>/` (game.yaml, deck YAML, spreadsheets, data tables) and the shipped JSON
Schemas (`generator/assets/schemas/`). Out: a `model.Game`, plain frozen values with the
file and line each came from, or an `InputError` listing every problem at once. Also here:
`pnp pull` (spreadsheets refreshed from the web) and `pnp new` (a starter game).
"""
