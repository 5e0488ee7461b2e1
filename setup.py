"""Only what pyproject.toml cannot say: the repository keeps its data in the top-level
``resources/`` folder, and the wheel ships it as the package data ``bagel_studio/resources``
(``bagel_studio.core.resources`` finds either). Each folder of data, under ``resources/`` or in
the package, is listed as a (data-only) package so that setuptools neither drops nor warns about
it; which files go in is the ``package-data`` table of pyproject.toml, as for everything else.

An editable install (``pip install -e .``) leaves that mapping out: the checkout's
``resources/`` is found where it lies, and without a mapped package setuptools' default mode
installs a plain path entry to the checkout (a ``.pth`` line) instead of an import hook that every
start of Python in the environment would load first. That is what the transitional ``compat``
mode did, which setuptools warns is to be removed.
"""

import sys

from setuptools import find_namespace_packages, setup

RESOURCE_PACKAGES = [
    "bagel_studio.resources",
    *(f"bagel_studio.resources.{name}" for name in find_namespace_packages(where="resources")),
]
# setuptools' build backend runs this file with the command it builds: an editable wheel here.
EDITABLE = "editable_wheel" in sys.argv[1:]

setup(
    # Folders of package data inside the package (e.g. core/llm/prompts) count as packages too.
    packages=[
        *find_namespace_packages(
            include=["bagel_studio", "bagel_studio.*"], exclude=["*__pycache__*"]
        ),
        *([] if EDITABLE else RESOURCE_PACKAGES),
    ],
    # {"": "."}: every package where its name says, the layout setuptools installs as a path.
    package_dir={"": "."} if EDITABLE else {"bagel_studio.resources": "resources"},
)
