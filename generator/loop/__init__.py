"""The edit loop: rebuild on save, the live preview and visual diffs.

In: the project and the build pipeline. Out: rebuilt games (`watch`), a local web page of
every face (`preview`) and before/after pictures against a git ref (`diffreport`).
Nothing below this package knows a watch exists: what a rebuild may reuse is handed
down as a session.
"""
