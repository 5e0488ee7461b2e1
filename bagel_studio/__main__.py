"""The ``bagel-studio`` entry point: the desktop app, or the command line with a subcommand."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("open", "demo"):
        from bagel_studio.ui.launch import launch

        return launch(args)
    from bagel_studio.core.cli import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
