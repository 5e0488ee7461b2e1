"""Write ``objects/``, the schema objects each migration makes (``integrity``), after a migration
is added: ``python -m bagel_studio.core.store.write_objects``."""

from __future__ import annotations

import sys

from bagel_studio.core.store.integrity import write_objects

if __name__ == "__main__":
    for written in write_objects():
        sys.stdout.write(f"{written}\n")
