"""Data: a game folder read and checked, nothing drawn.

In: `cards/<game>/` (game.yaml, deck YAML, spreadsheets, data tables) and the shipped JSON
Schemas (`generator/assets/schemas/`). Out: a `model.Game`, plain frozen values with the
file and line each came from, or an `InputError` listing every problem at once. Card tables:
`tablefile` and `workbook` read CSV/TSV/XLSX/ODS files within limits (`sheetbase`),
`spreadsheet` turns their rows into cards; `cardsource` reads cards from JSON (`jsonsrc`)
or YAML files and makes ranges, `cardmap` maps each field with JMESPath. Also here: `pnp pull` (`pull`, `download`:
spreadsheets refreshed from the web) and `pnp new` (`starter`: a starter game).
"""
